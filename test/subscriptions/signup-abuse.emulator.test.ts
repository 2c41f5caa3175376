import { afterEach, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../lib/wiring/app-deps';
import { onVirtualTime } from '../support/virtual-time';
import { handleSignupRequest, SIGNUP_ACCEPTED_MESSAGE } from '../../lib/subscriptions/handle-signup-request';
import { mailboxOf } from '../../lib/subscribers/mailbox';
import { SIGNUP_LIMITS } from '../../lib/http/rate-limit';
import { LINK_LIFETIME_DAYS } from '../../lib/subscribers/link-token';
import { until } from '../support/deferred';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { callConfirm, linkIn } from './signup-fixture';
import { countOutbox } from '../../lib/ops/read-status';

/**
 * docs/design.md §2.12: no caller can make Scout mail one mailbox more than its allowance. The attacks run
 * each through the real signup handler, the emulator and the mail sink: forged
 * client addresses, plus-variants of one mailbox, and floods that would outrun the provider.
 */
const NOW = new Date('2026-11-30T06:00:00Z');
const minutesLater = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const ACCEPTED = { status: 202, body: { ok: true, message: SIGNUP_ACCEPTED_MESSAGE } };
let h: Harness;

afterEach(async () => h?.close());

async function signup(deps: AppDeps, input: { email: string; headers?: Record<string, string>; now?: Date }) {
  const response = await handleSignupRequest(
    new Request('http://localhost:3000/api/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:3000', ...input.headers },
      body: JSON.stringify({ email: input.email, keywords: 'react', mode: 'instant' }),
    }),
    { ...deps, now: input.now ?? NOW },
  );
  return { status: response.status, body: await response.json() };
}

/** A mixed-case plus-variant of victim@example.com for each i: every one reaches the same inbox. */
const variant = (i: number) => `${i % 2 ? 'Victim' : 'victim'}+${i}@Example.com`;
const toVictim = async () => (await h.inbox()).filter((m) => mailboxOf(m.to[0]) === 'victim@example.com');

describe('one mailbox gets at most its allowance, whatever the caller forges', () => {
  it('200 signups at once for plus-variants of one mailbox, from 200 forged client addresses: one email', async () => {
    h = await createHarness();
    // One machine, its own X-Forwarded-For on every request (TRUSTED_PROXY_HOPS=0: no header is believed).
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        signup(h.deps, { email: variant(i), headers: { 'x-forwarded-for': `198.51.${i % 256}.${(i * 7) % 256}` } }),
      ),
    );
    // At most the mailbox's allowance in one window: one email.
    expect((await toVictim()).length).toBeLessThanOrEqual(1);
    expect((await h.inbox()).length).toBeLessThanOrEqual(1);
    // No client address is trusted, so no per-client limit applies (it would be everyone's): the
    // mailbox's allowance above is what holds, and every signup gets the same answer.
    expect(answers.every((a) => a.status === 202)).toBe(true);
  });

  it('200 signups for plus-variants of one mailbox from 200 different real clients, through a day: the daily allowance', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
    // A botnet behind one proxy: each request forges an entry and comes from its own address, which the proxy appends.
    const answers = [];
    for (let round = 0; round < 25; round++) {
      const now = minutesLater(round * 10);
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 8 }, (_, k) => {
            const i = round * 8 + k;
            return signup(h.deps, { email: variant(i), now, headers: { 'x-forwarded-for': `10.0.0.${k}, 203.0.${round}.${k + 1}` } });
          }),
        )),
      );
    }
    // Every answer is the same 202, emailed or not: the form tells nobody who is subscribed or limited.
    expect(answers).toEqual(Array(200).fill(ACCEPTED));
    expect(await toVictim()).toHaveLength(SIGNUP_LIMITS.addressPerDay);
    // No row is left in the outbox for the cron to send later: the limit held the emails back, not just the request.
    expect((await h.db.collection('emails').get()).size).toBe(SIGNUP_LIMITS.addressPerDay);
  });
});

describe('the per-client limit keys on the trusted client address', () => {
  const clients = {
    'behind one proxy (TRUSTED_PROXY_HOPS=1): the entry the proxy appended': {
      env: { TRUSTED_PROXY_HOPS: '1' },
      forged: (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}, 203.0.113.50` }),
      other: { 'x-forwarded-for': '198.51.100.1, 203.0.113.51' },
    },
    'on Vercel: the X-Forwarded-For Vercel overwrites': {
      env: { VERCEL: '1' },
      forged: (i: number) => ({
        'x-forwarded-for': '203.0.113.50',
        'x-real-ip': `198.51.100.${i}`,
        'x-vercel-forwarded-for': `198.51.100.${i}`,
      }),
      other: { 'x-forwarded-for': '203.0.113.51' },
    },
  };

  it.each(Object.keys(clients))('%s', async (name) => {
    const { env, forged, other } = clients[name as keyof typeof clients];
    h = await createHarness(env);
    const statuses = [];
    for (let i = 0; i < SIGNUP_LIMITS.clientPerWindow + 5; i++)
      statuses.push((await signup(h.deps, { email: `user${i}@example.com`, headers: forged(i) })).status);
    expect(statuses).toEqual([...Array(SIGNUP_LIMITS.clientPerWindow).fill(202), ...Array(5).fill(429)]);
    if (other) expect((await signup(h.deps, { email: 'other@example.com', headers: other })).status).toBe(202);
  });
});

describe('without a trusted client address one caller cannot close the form for everyone', () => {
  it(`TRUSTED_PROXY_HOPS=0: ${SIGNUP_LIMITS.clientPerWindow + 1} signups for different mailboxes from one caller, then another visitor still signs up and is mailed`, async () => {
    h = await createHarness();
    const caller = { 'x-forwarded-for': '198.51.100.1' };
    for (let i = 0; i <= SIGNUP_LIMITS.clientPerWindow; i++)
      expect((await signup(h.deps, { email: `user${i}@example.com`, headers: caller })).status, `signup ${i + 1}`).toBe(202);
    const visitor = await signup(h.deps, { email: 'visitor@example.com', headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(visitor).toEqual(ACCEPTED);
    await until(async () => (await h.inbox()).some((m) => m.to[0] === 'visitor@example.com'), 'the visitor’s confirmation');
    // The per-client counter is not kept at all: it would be one bucket for every visitor.
    const kinds = (await h.db.collection('rateLimits').get()).docs.map((d) => d.get('kind'));
    expect(kinds).not.toContain('client-hour');
  });
});

describe('a global cap on signup emails per hour (SIGNUP_CONFIRMATIONS_PER_HOUR) delays emails, never refuses a visitor', () => {
  const uidOf = (email: string) => Buffer.from(email).toString('base64url');
  const rows = async () => (await h.db.collection('emails').get()).docs.map((d) => ({ key: d.id, ...d.data() }) as any);

  it('past the hour’s cap each email takes a place in the next hour, spread across it, and goes out when a run finds it due', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' }, { SIGNUP_CONFIRMATIONS_PER_HOUR: 3 });
    await h.subscribe({ email: 'active@example.com', keywords: ['react'] });
    const emails = ['a@example.com', 'b@example.com', 'active@example.com', 'c@example.com', 'd@example.com', 'e@example.com'];
    const answers = [];
    for (const [i, email] of emails.entries())
      answers.push(await signup(h.deps, { email, headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } }));
    expect(answers).toEqual(Array(emails.length).fill(ACCEPTED));
    // The manage link an active subscriber gets instead of a confirmation counts against the cap too.
    expect((await h.inbox()).map((m) => m.to[0]).sort()).toEqual(['a@example.com', 'active@example.com', 'b@example.com']);
    const held = (await rows()).filter((r) => r.status === 'held');
    expect(held.map((r) => [r.uid, r.notBefore.toDate().toISOString()]).sort()).toEqual([
      [uidOf('c@example.com'), '2026-11-30T07:00:00.000Z'],
      [uidOf('d@example.com'), '2026-11-30T07:20:00.000Z'],
      [uidOf('e@example.com'), '2026-11-30T07:40:00.000Z'],
    ]);

    // A run before their time sends none of them; each run after sends those now due, once.
    await h.run({ now: '2026-11-30T06:45:00Z' });
    expect(await h.inbox()).toHaveLength(3);
    await Promise.all([h.run({ now: '2026-11-30T07:25:00Z', lockName: 'one' }), h.run({ now: '2026-11-30T07:25:00Z', lockName: 'two' })]);
    expect(
      (await h.inbox())
        .map((m) => m.to[0])
        .slice(3)
        .sort(),
    ).toEqual(['c@example.com', 'd@example.com']);
    await h.run({ now: '2026-11-30T07:45:00Z' });
    expect(
      (await h.inbox())
        .map((m) => m.to[0])
        .slice(3)
        .sort(),
    ).toEqual(['c@example.com', 'd@example.com', 'e@example.com']);

    // The delayed confirmation was issued for when it went out: its link works 2 days from then, and the subscriber is still there.
    const late = (await h.inbox()).find((m) => m.to[0] === 'e@example.com')!;
    expect(LINK_LIFETIME_DAYS.confirm).toBe(2);
    expect(late.text).toContain('The link works for 2 days.');
    const link = linkIn(late.text, h.config.APP_URL, '/confirm');
    // Two days after the signup, but not after the email: the link still works.
    const confirmed = await callConfirm(h, 'POST', link, new Date('2026-12-02T07:30:00Z'));
    expect(confirmed.status).toBe(200);
    expect((await h.db.collection('users').doc(uidOf('e@example.com')).get()).get('status')).toBe('active');
  });

  it('the cap holds per hour for 30 signups at once: no hour’s allowance is overspent, and every email has its place', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' }, { SIGNUP_CONFIRMATIONS_PER_HOUR: 5 });
    const emails = Array.from({ length: 30 }, (_, i) => `burst${i}@example.com`);
    const answers = await Promise.all(
      emails.map((email, i) => signup(h.deps, { email, headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } })),
    );
    expect(answers).toEqual(Array(emails.length).fill(ACCEPTED));
    const all = await rows();
    expect(all).toHaveLength(30);
    const hourOf = (r: any) => (r.notBefore ? r.notBefore.toDate().toISOString().slice(0, 13) : 'now');
    const perHour = new Map<string, number>();
    for (const r of all) perHour.set(hourOf(r), (perHour.get(hourOf(r)) ?? 0) + 1);
    // Racers that lose an hour's last place go on to the next: each hour gets exactly its allowance, none wasted.
    expect([...perHour.entries()].sort()).toEqual([
      ['2026-11-30T07', 5],
      ['2026-11-30T08', 5],
      ['2026-11-30T09', 5],
      ['2026-11-30T10', 5],
      ['2026-11-30T11', 5],
      ['now', 5],
    ]);
    expect(await h.inbox()).toHaveLength(5);
  });

  it('a backlog of 40 hours: every email keeps its place in order, none is dropped, and the queue shows on the ops counts', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' }, { SIGNUP_CONFIRMATIONS_PER_HOUR: 1 });
    for (let i = 0; i < 40; i++)
      expect(await signup(h.deps, { email: `u${i}@example.com`, headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } })).toEqual(ACCEPTED);
    const all = await rows();
    expect(all).toHaveLength(40);
    const hourOf = (r: any) => (r.notBefore ? (r.notBefore.toDate().getTime() - NOW.getTime()) / 3_600_000 : 0);
    // The i-th signup waits i hours: first come, first served, one an hour.
    const order = all.map((r) => [
      Number(
        Buffer.from(r.uid, 'base64url')
          .toString()
          .match(/^u(\d+)@/)![1],
      ),
      hourOf(r),
    ]);
    expect(order.sort((a, b) => a[0] - b[0])).toEqual(Array.from({ length: 40 }, (_, i) => [i, i]));
    expect((await countOutbox(h.db)).held).toBe(39);
    // The end of the queue is remembered, so the next signup reads a few hours, not all 40.
    expect((await h.db.collection('rateLimits').doc('signup-emails-frontier').get()).get('hour')).toBe(
      Math.floor(NOW.getTime() / 3_600_000) + 39,
    );
  });
});

describe('confirmations are sent through the same limiter as everything else', () => {
  it('8 signups at once: never more than SEND_RATE_PER_SEC (2) provider requests started in one second', async () => {
    h = await createHarness({ SEND_RATE_PER_SEC: '2', TRUSTED_PROXY_HOPS: '1' }, { SEND_CONCURRENCY: 2 });
    const { deps, starts } = onVirtualTime(h.deps);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        signup(deps, { email: `user${i}@example.com`, headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } }),
      ),
    );
    expect(answers).toEqual(Array(8).fill(ACCEPTED));
    expect(await h.inbox()).toHaveLength(8);
    expect(starts).toHaveLength(8);
    const sorted = [...starts].sort((a, b) => a - b);
    // Any three consecutive starts span at least a second.
    for (let i = 2; i < sorted.length; i++) expect(sorted[i] - sorted[i - 2], `starts ${i - 2}..${i}`).toBeGreaterThanOrEqual(1000);
  });

  it('a flood that does not fit a request: each signup answers within its budget, the rest is handed to the cron untried, each email goes out once', async () => {
    h = await createHarness({ SEND_RATE_PER_SEC: '2', TRUSTED_PROXY_HOPS: '1' }, { SEND_CONCURRENCY: 2 });
    // Every signup reaches the limiter (its row leased) before the first request starts.
    const leased = async () => (await h.db.collection('emails').where('status', '==', 'sending').get()).size === 40;
    const { deps, starts } = onVirtualTime(h.deps, { holdSends: () => until(leased, '40 leased confirmations') });
    const began = deps.wallClock();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        signup(deps, { email: `user${i}@example.com`, headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } }),
      ),
    );
    expect(answers).toEqual(Array(40).fill(ACCEPTED));
    // No request waited for a slot past its budget (10 s of the virtual clock).
    expect(deps.wallClock() - began).toBeLessThanOrEqual(11_000);
    const sentAtSignup = (await h.inbox()).length;
    expect(sentAtSignup).toBe(starts.length);
    expect(sentAtSignup).toBeGreaterThan(0);
    expect(sentAtSignup).toBeLessThan(40);
    const rows = (await h.db.collection('emails').get()).docs.map((d) => ({ status: d.get('status'), attempts: d.get('attempts') }));
    expect(rows.filter((r) => r.status === 'sent')).toHaveLength(sentAtSignup);
    // Handed back as if never tried: pending, no attempt used.
    expect(rows.filter((r) => r.status !== 'sent')).toEqual(Array(40 - sentAtSignup).fill({ status: 'pending', attempts: 0 }));

    expect((await h.cron({ now: minutesLater(5).toISOString() })).status).toBe(200);
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(40);
    expect(new Set(inbox.map((m) => m.to[0])).size).toBe(40);
  });

  it("a run's sends and a signup's go through the process's one limiter", async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    h.serveFeed(postingsAbout('react', 1, { at: NOW }));
    expect(h.deps.sendLimiter.requests()).toBe(0);
    expect((await h.cron({ now: NOW.toISOString() })).body.instantEmails).toBe(1);
    expect(h.deps.sendLimiter.requests()).toBe(1);
    expect(await signup(h.deps, { email: 'bea@example.com', headers: { 'x-forwarded-for': '203.0.113.2' } })).toEqual(ACCEPTED);
    expect(h.deps.sendLimiter.requests()).toBe(2);
    expect(await h.inbox()).toHaveLength(2);
  });
});
