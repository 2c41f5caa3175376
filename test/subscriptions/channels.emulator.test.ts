import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_CHANNELS, MAX_VERIFY_TRIES, VERIFY_WINDOW_MS } from '../../lib/channels/channel';
import { decodeProfile } from '../../lib/subscribers/match-index';
import { unsubscribeUrl } from '../../lib/subscribers/link-token';
import { unsubscribeSubscriber } from '../../lib/subscriptions/unsubscribe';
import { CHANNEL_SENDS } from '../../lib/subscriptions/channel-actions';
import type { Harness } from '../support/harness';
import { codeSentTo, type ChannelReceiver } from '../support/channel-receiver';
import { indexEntries } from '../support/match-index';
import { channelScout, NOW, pages, seenOn } from './channel-fixture';

let h: Harness;
let receiver: ChannelReceiver;
let p: ReturnType<typeof pages>;

beforeEach(async () => {
  ({ h, receiver } = await channelScout());
  p = pages(h, receiver);
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

const SLACK_PATH = '/services/T0001/B0001/abcdefXYZ';
const DISCORD_PATH = '/api/webhooks/1144771224465121280/token-abc_DEF';
const subscribe = (mode: 'instant' | 'daily' = 'instant') => h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode });
const addSlack = (uid: string) => p.post(uid, { action: 'channel-add', kind: 'slack', url: `${receiver.url}${SLACK_PATH}` });

/** The routes the subscriber's match index entry carries, as the claim decodes them. */
async function routesInIndex(uid: string) {
  const entry = (await indexEntries(h.db)).get(uid);
  return entry === undefined || entry === null ? undefined : (decodeProfile(uid, entry)?.routes ?? []);
}

describe('adding and verifying a Slack or Discord channel', () => {
  it('sends a code to the URL, and the code typed back makes the channel active, with its route in the match index', async () => {
    const uid = await subscribe();
    const added = await addSlack(uid);
    expect(added.status).toBe(200);
    expect(added.html).toContain('Scout sent a 6-digit code to Slack');
    expect(added.html).toContain('Verifying');
    const code = codeSentTo(receiver, SLACK_PATH);
    expect(code).toMatch(/^\d{6}$/);
    const [channel] = await p.channels(uid);
    expect(channel).toMatchObject({ kind: 'slack', status: 'verifying', instant: true, digest: false, verifyTries: 0 });
    // Only the hash is stored.
    expect(JSON.stringify((await h.db.collection('users').doc(uid).get()).data())).not.toContain(code);
    expect(await routesInIndex(uid)).toEqual([]);

    const verified = await p.post(uid, { action: 'channel-verify', channel: channel.id, seen: seenOn(added.html), code: code! });
    expect(verified.status).toBe(200);
    expect(verified.html).toContain('Verified: this channel gets your postings');
    expect(verified.html).toContain('>Active<');
    expect((await p.channels(uid))[0]).toMatchObject({ status: 'active', verifyHash: null, verifiedAt: NOW });
    expect(await routesInIndex(uid)).toEqual([{ id: channel.id, kind: 'slack', instant: true, digest: false }]);
  });

  it('is not added when the platform says the URL is gone, and the page says why', async () => {
    const uid = await subscribe();
    receiver.setAnswer(() => ({ status: 404, body: '{"message": "Unknown Webhook", "code": 10015}' }));
    const page = await p.post(uid, { action: 'channel-add', kind: 'discord', url: `${receiver.url}${DISCORD_PATH}` });
    expect(page.status).toBe(400);
    expect(page.html).toContain('Not added: Discord says this address does not exist');
    expect(await p.channels(uid)).toEqual([]);
  });

  it('adds the channel when the platform does not answer, and says the code may not have arrived', async () => {
    const uid = await subscribe();
    receiver.setAnswer(() => 'hang');
    const page = await addSlack(uid);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Slack did not say whether it got the message');
    expect((await p.channels(uid))[0]).toMatchObject({ kind: 'slack', status: 'verifying' });
  });

  it('adds the channel when the platform asks to slow down (429), and says to try again', async () => {
    const uid = await subscribe();
    receiver.setAnswer(() => ({ status: 429, body: '{"message": "You are being rate limited.", "retry_after": 0.5, "global": false}' }));
    const page = await p.post(uid, { action: 'channel-add', kind: 'discord', url: `${receiver.url}${DISCORD_PATH}` });
    expect(page.status).toBe(200);
    expect(page.html).toContain('Discord asked Scout to slow down');
    expect(await p.channels(uid)).toHaveLength(1);
  });

  it('locks after five wrong codes: even the right one then fails, and a new code works', async () => {
    const uid = await subscribe();
    await addSlack(uid);
    const code = codeSentTo(receiver, SLACK_PATH)!;
    const [channel] = await p.channels(uid);
    const wrong = code === '000000' ? '111111' : '000000';
    const answers = [];
    for (let i = 0; i < MAX_VERIFY_TRIES; i++)
      answers.push(await p.post(uid, { action: 'channel-verify', channel: channel.id, code: wrong }));
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400]);
    expect(answers[0].html).toContain('4 tries left');
    expect(answers[4].html).toContain('Too many wrong codes');
    const locked = await p.post(uid, { action: 'channel-verify', channel: channel.id, code });
    expect(locked.html).toContain('Too many wrong codes');
    expect((await p.channels(uid))[0].status).toBe('verifying');

    const renewed = await p.post(uid, { action: 'channel-new-code', channel: channel.id, seen: seenOn(locked.html) });
    expect(renewed.html).toContain('Scout sent a new code to Slack');
    const fresh = codeSentTo(receiver, SLACK_PATH)!;
    const done = await p.post(uid, { action: 'channel-verify', channel: channel.id, code: fresh });
    expect(done.html).toContain('Verified');
    expect((await p.channels(uid))[0].status).toBe('active');
  });

  it('refuses a code after its window, whatever it is', async () => {
    const uid = await subscribe();
    await addSlack(uid);
    const code = codeSentTo(receiver, SLACK_PATH)!;
    const [channel] = await p.channels(uid);
    const late = new Date(NOW.getTime() + VERIFY_WINDOW_MS);
    const page = await p.post(uid, { action: 'channel-verify', channel: channel.id, code }, { now: late });
    expect(page.status).toBe(400);
    expect(page.html).toContain('That code has expired');
    expect((await p.channels(uid))[0].status).toBe('verifying');
  });

  it('eight concurrent posts of the right code verify once: one "Verified", the others find it already verified', async () => {
    const uid = await subscribe();
    await addSlack(uid);
    const code = codeSentTo(receiver, SLACK_PATH)!;
    const [channel] = await p.channels(uid);
    const before = (await h.db.collection('users').doc(uid).get()).updateTime!;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => p.post(uid, { action: 'channel-verify', channel: channel.id, code })),
    );
    expect(answers.filter((a) => a.html.includes('Verified: this channel')).length).toBe(1);
    expect(answers.filter((a) => a.html.includes('already verified')).length).toBe(7);
    const after = await h.db.collection('users').doc(uid).get();
    expect(after.updateTime!.isEqual(before)).toBe(false);
    expect((await p.channels(uid))[0]).toMatchObject({ status: 'active', verifiedAt: NOW });
  });
});

describe('a webhook channel', () => {
  it('shows its secret once, stays verifying while the test event fails, and is active after a 2xx', async () => {
    const uid = await subscribe();
    const added = await p.post(uid, { action: 'channel-add', kind: 'webhook', url: `${receiver.url}/hooks/scout` });
    const secret = added.html.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
    expect(secret).toBeDefined();
    expect((await p.channels(uid))[0]).toMatchObject({ kind: 'webhook', status: 'verifying', secret });
    expect((await p.get(uid)).html).not.toContain('whsec_');

    receiver.setAnswer(() => ({ status: 500 }));
    const failed = await p.post(uid, { action: 'channel-test', channel: (await p.channels(uid))[0].id, seen: seenOn(added.html) });
    expect(failed.status).toBe(502);
    expect(failed.html).toContain('stays unverified');
    expect((await p.channels(uid))[0].status).toBe('verifying');

    receiver.setAnswer(() => ({ status: 204 }));
    const ok = await p.post(uid, { action: 'channel-test', channel: (await p.channels(uid))[0].id, seen: seenOn(failed.html) });
    expect(ok.html).toContain('the webhook is verified');
    expect((await p.channels(uid))[0].status).toBe('active');
    expect(receiver.received.filter((r) => r.path === '/hooks/scout').map((r) => JSON.parse(r.body).type)).toEqual([
      'scout.test',
      'scout.test',
    ]);

    const rotated = await p.post(uid, { action: 'channel-rotate-secret', channel: (await p.channels(uid))[0].id, seen: seenOn(ok.html) });
    const next = rotated.html.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
    expect(next).toBeDefined();
    expect(next).not.toBe(secret);
    expect((await p.channels(uid))[0].secret).toBe(next);
    expect((await p.get(uid)).html).not.toContain('whsec_');
  });

  it('refuses a URL that is not https to a named host, and Slack or Discord URLs off their hosts', async () => {
    const uid = await subscribe();
    for (const [kind, url] of [
      ['webhook', 'http://example.com/hook'],
      ['slack', 'https://hooks.slack.com.evil.example/services/T/B/X'],
      ['discord', 'https://discordapp.com/api/webhooks/1/abc'],
    ]) {
      const page = await p.post(uid, { action: 'channel-add', kind, url });
      expect(page.status, url).toBe(400);
    }
    expect(await p.channels(uid)).toEqual([]);
    expect(receiver.received).toEqual([]);
  });
});

describe('what a subscriber does with a verified channel', () => {
  async function activeSlack(mode: 'instant' | 'daily' = 'instant') {
    const uid = await subscribe(mode);
    await addSlack(uid);
    const [channel] = await p.channels(uid);
    const page = await p.post(uid, { action: 'channel-verify', channel: channel.id, code: codeSentTo(receiver, SLACK_PATH)! });
    return { uid, id: channel.id, page };
  }

  it('pauses and resumes: a paused channel has no route', async () => {
    const { uid, id, page } = await activeSlack();
    const paused = await p.post(uid, { action: 'channel-pause', channel: id, seen: seenOn(page.html) });
    expect(paused.html).toContain('Paused: Slack');
    expect(await routesInIndex(uid)).toEqual([]);
    const resumed = await p.post(uid, { action: 'channel-resume', channel: id, seen: seenOn(paused.html) });
    expect(resumed.html).toContain('Resumed');
    expect(await routesInIndex(uid)).toHaveLength(1);
  });

  it('offers the digest only to a daily or weekly subscriber, and refuses a channel that would get nothing', async () => {
    const instant = await activeSlack('instant');
    const refused = await p.post(instant.uid, {
      action: 'channel-cadence',
      channel: instant.id,
      seen: seenOn(instant.page.html),
      instant: 'on',
      digest: 'on',
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Scout sends digests only on a daily or weekly schedule');
    expect(instant.page.html).toContain('Digests come with a daily or weekly schedule');
  });

  it('saves the cadence of a daily subscriber’s channel into its route', async () => {
    const { uid, id, page } = await activeSlack('daily');
    const none = await p.post(uid, { action: 'channel-cadence', channel: id, seen: seenOn(page.html) });
    expect(none.status).toBe(400);
    const saved = await p.post(uid, { action: 'channel-cadence', channel: id, seen: seenOn(page.html), digest: 'on' });
    expect(saved.status).toBe(200);
    expect(await routesInIndex(uid)).toEqual([{ id, kind: 'slack', instant: false, digest: true }]);
  });

  it('removes only after the confirmation step', async () => {
    const { uid, id, page } = await activeSlack();
    const asked = await p.post(uid, { action: 'channel-remove', channel: id, seen: seenOn(page.html) });
    expect(asked.html).toContain('Yes, remove it');
    expect(await p.channels(uid)).toHaveLength(1);
    const removed = await p.post(uid, { action: 'channel-remove', channel: id, seen: seenOn(asked.html), confirm: 'yes' });
    expect(removed.html).toContain('Removed: Slack');
    expect(await p.channels(uid)).toEqual([]);
    expect(await routesInIndex(uid)).toEqual([]);
  });

  it('a stale page does not clobber a change made since: it is refused and shows the channel as it is', async () => {
    const { uid, id, page } = await activeSlack('daily');
    const stale = seenOn(page.html);
    await p.post(uid, { action: 'channel-cadence', channel: id, seen: stale, instant: 'on', digest: 'on' });
    const before = await p.channels(uid);
    const old = await p.post(uid, { action: 'channel-pause', channel: id, seen: stale });
    expect(old.status).toBe(409);
    expect(old.html).toContain('changed since this page was loaded');
    expect(await p.channels(uid)).toEqual(before);
  });

  it('refuses a post from another site, before anything is read', async () => {
    const { uid, id, page } = await activeSlack();
    const before = await h.dump(['users']);
    const forged = await p.post(
      uid,
      { action: 'channel-pause', channel: id, seen: seenOn(page.html) },
      { headers: { origin: 'https://evil.example' } },
    );
    expect(forged.status).toBe(403);
    expect(await h.dump(['users'])).toEqual(before);
  });

  it(`keeps at most ${MAX_CHANNELS} channels`, async () => {
    const uid = await subscribe();
    for (let i = 0; i < MAX_CHANNELS; i++) {
      const page = await p.post(uid, { action: 'channel-add', kind: 'webhook', url: `${receiver.url}/hook-${i}` });
      expect(page.status).toBe(200);
    }
    const over = await p.post(uid, { action: 'channel-add', kind: 'webhook', url: `${receiver.url}/hook-more` });
    expect(over.status).toBe(400);
    expect(over.html).toContain(`You have ${MAX_CHANNELS} channels`);
    expect(await p.channels(uid)).toHaveLength(MAX_CHANNELS);
  });

  it(`bounds the messages a subscriber's page can make Scout send: ${CHANNEL_SENDS.perWindow} an hour`, async () => {
    const { uid, id, page } = await activeSlack();
    // The add counted one.
    const answers = [];
    for (let i = 0; i < CHANNEL_SENDS.perWindow; i++)
      answers.push(await p.post(uid, { action: 'channel-test', channel: id, seen: seenOn(page.html) }));
    expect(answers.slice(0, CHANNEL_SENDS.perWindow - 1).every((a) => a.status === 400)).toBe(true);
    expect(answers.at(-1)!.status).toBe(429);
    expect(answers.at(-1)!.html).toContain('try again in');
  });

  it('unsubscribing removes every channel in the same write: no channel, no route, no index entry', async () => {
    const { uid } = await activeSlack();
    await p.post(uid, { action: 'channel-add', kind: 'webhook', url: `${receiver.url}/hooks/scout` });
    expect(await routesInIndex(uid)).toHaveLength(1);
    const token = new URL(unsubscribeUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW })).searchParams.get(
      'token',
    );
    const result = await unsubscribeSubscriber(h.db, { token, secret: h.config.LINK_SECRET, now: NOW });
    expect(result.ok).toBe(true);
    const stored = (await h.db.collection('users').doc(uid).get()).data()!;
    expect(stored).toMatchObject({ status: 'unsubscribed', channels: [], channelStates: [] });
    expect(await routesInIndex(uid)).toBeUndefined();
  });
});
