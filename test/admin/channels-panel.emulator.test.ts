import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_KINDS } from '../../lib/channels/channel';
import { createHarness, type Harness } from '../support/harness';
import { EXPECTED, SECRETS, WORLD_EMAILS, seedChannelWorld } from '../ops/channel-world';
import { adminClient } from './admin-fixture';

/**
 * The ops page's Channels panel over subscribers with channels in every kind and several states,
 * the channels' outbox, two destinations disabled as gone, and runs whose records carry channel
 * stats: counted as stored, and never a destination, a secret or an address in full.
 */
const NOW = new Date('2026-11-30T09:00:00Z');
let h: Harness;
let body: string;

beforeAll(async () => {
  h = await createHarness();
  await seedChannelWorld({
    db: h.db,
    subscribe: (email) => h.subscribe({ email, keywords: ['react'] }),
    settings: { appUrl: h.config.APP_URL, from: h.config.MAIL_FROM, linkSecret: h.config.LINK_SECRET },
  });
  const admin = adminClient(h, NOW);
  const res = await admin.get({ cookie: await admin.session() });
  expect(res.status).toBe(200);
  body = res.body;
}, 60_000);
afterAll(async () => h.close());

const panel = () => body.slice(body.indexOf('id="channels"'), body.indexOf('</section>', body.indexOf('id="channels"')));
/** A kind's row as numbers: verifying, active, paused, disabled, then sent and failed in the runs listed. */
const row = (kind: string) =>
  [...(new RegExp(`<tr id="channels-${kind}">([\\s\\S]*?)</tr>`).exec(panel())?.[1] ?? '').matchAll(/<td class="num">(\d+)<\/td>/g)].map(
    (m) => Number(m[1]),
  );
const tile = (label: string) => new RegExp(`<span class="n">(\\d+)</span><span class="l">${label}</span>`).exec(panel())?.[1];

describe('the ops page: channels', () => {
  it('shows per kind the subscribers verifying, active, paused and disabled, and what the listed runs sent and failed', () => {
    const sentFailed = { slack: [2, 0], discord: [0, 0], telegram: [2, 1], webhook: [1, 1] };
    for (const kind of CHANNEL_KINDS) {
      const { verifying, active, paused, disabled } = EXPECTED.subscribers[kind];
      expect(row(kind), kind).toEqual([verifying, active, paused, disabled, ...sentFailed[kind]]);
    }
    expect(panel()).toContain('<th scope="col" class="num">Verifying</th>');
    // What the figures cover: the three runs listed, from the oldest one's start.
    expect(panel()).toContain('messages of the last 3 runs (since 2026-11-30 05:45:00 UTC, 3 hours)');
    expect(panel()).toContain('two Slack channels of one subscriber, both active, count once');
    expect(panel()).toContain('2 of the 3 had a messages step');
  });

  it('shows the messages waiting and what the runs skipped, left to retry and disabled', () => {
    expect(tile('channel messages pending')).toBe(String(EXPECTED.waiting.pending));
    expect(tile('channel messages sending')).toBe(String(EXPECTED.waiting.sending));
    expect(tile('channel messages skipped in recent runs \\(an opt-out\\)')).toBe('1');
    expect(tile('channel messages left to retry in recent runs')).toBe('2');
    expect(tile('channels disabled as gone in recent runs')).toBe('1');
  });

  it('lists each channel disabled as gone: when, kind, the masked subscriber, why and what it is now, newest first', () => {
    const disabled = panel().slice(panel().indexOf('Recently disabled'));
    const ada = disabled.indexOf('a***@example.com');
    const cid = disabled.indexOf('c***@example.com');
    expect(ada).toBeGreaterThan(0);
    expect(cid).toBeGreaterThan(ada);
    expect(disabled).toContain('2026-11-30 06:00:02');
    expect(disabled).toContain('2026-11-30 05:00:01');
    expect(disabled.match(/<td class="err">webhook 410<\/td>/g)).toHaveLength(2);
    expect(disabled).toContain('<span class="pill bad">disabled</span>');
    expect(disabled).toContain('<span class="pill quiet">removed</span>');
    // Bea's webhook failed with an unknown outcome: a loss, not a gone destination.
    expect(disabled).not.toContain('b***@example.com');
  });

  it('never shows a destination, a webhook secret or a subscriber’s address in full', () => {
    for (const secret of Object.values(SECRETS)) expect(body).not.toContain(secret);
    for (const label of ['hooks.slack.com', 'receiver.example', 'discord.com/']) expect(panel()).not.toContain(label);
    for (const email of Object.values(WORLD_EMAILS)) expect(body).not.toContain(email);
  });
});
