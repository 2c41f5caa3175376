import { afterEach, describe, expect, it } from 'vitest';
import { SEND_CONCURRENCY } from '../../lib/mail/send-limiter';
import { configSchema } from '../../lib/runtime/config';
import { handleSignupRequest, SIGNUP_ACCEPTED_MESSAGE } from '../../lib/subscriptions/handle-signup-request';
import type { AppDeps } from '../../lib/wiring/app-deps';
import { createHarness, type Harness } from '../support/harness';
import { onVirtualTime } from '../support/virtual-time';
import { adminClient } from '../admin/admin-fixture';

/**
 * A launch is the day signups matter most, and the day a global cap on signup emails would bite:
 * real people, each from their own address, all within minutes. Under the default settings none
 * of them may be left with "we have sent you an email" and nothing. A cap may delay an email; it
 * must never drop one, and what it holds is on the ops page.
 */
const NOW = Date.parse('2026-11-30T06:00:00Z');
const MINUTE = 60_000;
const ACCEPTED = { status: 202, body: { ok: true, message: SIGNUP_ACCEPTED_MESSAGE } };
const defaults = configSchema.pick({ SEND_RATE_PER_SEC: true }).parse({});
let h: Harness;

afterEach(async () => h?.close());

async function signup(deps: AppDeps, input: { email: string; ip: string; at: number }) {
  const response = await handleSignupRequest(
    new Request('http://localhost:3000/api/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:3000', 'x-forwarded-for': input.ip },
      body: JSON.stringify({ email: input.email, keywords: 'react', mode: 'daily' }),
    }),
    { ...deps, now: new Date(input.at) },
  );
  return { status: response.status, body: await response.json() };
}

const rows = async () => (await h.db.collection('emails').get()).docs.map((d) => d.data());

describe('a launch never loses a signup', () => {
  it('1,000 signups from 1,000 addresses in 10 minutes, default settings: 1,000 confirmations, each sent within 15 minutes of its signup', async () => {
    // The harness sends fast for other tests' sake; a launch is measured at the production pace.
    h = await createHarness({ SEND_RATE_PER_SEC: String(defaults.SEND_RATE_PER_SEC) }, { SEND_CONCURRENCY });
    expect(h.config.tuning?.SIGNUP_CONFIRMATIONS_PER_HOUR, 'the production cap, SIGNUP_CONFIRMATIONS_PER_HOUR').toBeUndefined();
    const { deps, clock } = onVirtualTime(h.deps, { start: NOW });
    // Ten people at a time, a wave every 6 s: 100 a minute for 10 minutes.
    for (let wave = 0; wave < 100; wave++) {
      const at = NOW + wave * 6_000;
      clock.advanceTo(at);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => {
          const n = wave * 10 + i;
          return signup(deps, { email: `person${n}@example.com`, ip: `198.51.${Math.floor(n / 250)}.${(n % 250) + 1}`, at });
        }),
      );
      expect(answers).toEqual(Array(10).fill(ACCEPTED));
    }
    // The cron's next call, 15 minutes after the launch began, sends whatever a request handed back.
    expect((await h.cron({ now: new Date(NOW + 15 * MINUTE).toISOString() })).status).toBe(200);

    const all = await rows();
    expect(all).toHaveLength(1_000);
    expect(all.filter((r) => r.status !== 'sent')).toEqual([]);
    const late = all.filter((r) => r.sentAt.toMillis() - r.createdAt.toMillis() > 15 * MINUTE);
    expect(late).toEqual([]);
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(1_000);
    expect(new Set(inbox.map((m) => m.to[0])).size).toBe(1_000);
    // 1,000 requests and 1,000 sends through the emulator and the sink: minutes on a loaded 2-core machine, not a measure of anything.
  }, 240_000);

  it('a spread attack is still capped: past the hour’s allowance the emails are held, not sent and not dropped, and the ops page shows them', async () => {
    h = await createHarness({ TRUSTED_PROXY_HOPS: '1' }, { SIGNUP_CONFIRMATIONS_PER_HOUR: 20 });
    // 60 mailboxes from 60 addresses, under every per-mailbox and per-client limit.
    for (let i = 0; i < 60; i++)
      expect(await signup(h.deps, { email: `target${i}@example.net`, ip: `203.0.113.${i + 1}`, at: NOW + i * 1_000 })).toEqual(ACCEPTED);
    expect(await h.inbox()).toHaveLength(20);
    const all = await rows();
    expect(all.filter((r) => r.status === 'held')).toHaveLength(40);
    // The next two hours' allowances, 20 each, spread across them.
    const due = all.filter((r) => r.status === 'held').map((r) => r.notBefore.toMillis());
    expect(Math.min(...due)).toBe(NOW + 60 * MINUTE);
    expect(Math.max(...due)).toBeLessThan(NOW + 180 * MINUTE);

    const admin = adminClient(h, new Date(NOW + 60_000));
    const page = await admin.get({ cookie: await admin.session() });
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<span class="n">40<\/span><span class="l">signup emails held for a later hour<\/span>/);
  });
});
