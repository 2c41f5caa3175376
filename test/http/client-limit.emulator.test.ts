import type { Firestore } from 'firebase-admin/firestore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientLimitId, countClientRequest, type ClientCount, type ClientLimit } from '../../lib/http/client-limit';
import { LOGIN_LIMIT, countLoginAttempt } from '../../lib/admin/login-limit';
import { PREVIEW_LIMITS, countPreview } from '../../lib/preview/preview-limit';
import { SIGNUP_CLIENT_LIMIT, countClientAttempt } from '../../lib/subscriptions/signup-client-limit';
import { createHarness, type Harness } from '../support/harness';

/**
 * The one per-client window limit, under each of its three policies (the signup's, the preview's,
 * the ops login's), against the emulator: requests that arrive together from one address.
 */

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

/** 20 s into a minute, and into an hour. */
const NOW = new Date('2026-03-02T10:00:20Z');
const ADDRESS = '203.0.113.7';
const SECRET = 'a-server-secret-of-some-length';

type Count = (db: Firestore, input: { clientAddress: string; secret: string; now: Date }) => Promise<ClientCount>;
const policies: [string, Count, number, number][] = [
  ['signup (an hour)', countClientAttempt, SIGNUP_CLIENT_LIMIT.perWindow, 3_600_000],
  ['preview (a minute)', countPreview, PREVIEW_LIMITS.perWindow, PREVIEW_LIMITS.windowMs],
  ['ops login (a minute)', countLoginAttempt, LOGIN_LIMIT.perWindow, LOGIN_LIMIT.windowMs],
];

const together = (count: Count, n: number, input: { clientAddress?: string; now?: Date } = {}) =>
  Promise.all(
    Array.from({ length: n }, () => count(h.db, { clientAddress: input.clientAddress ?? ADDRESS, secret: SECRET, now: input.now ?? NOW })),
  );
const passed = (answers: ClientCount[]) => answers.filter((a) => a.allowed).length;

describe('requests from one address that arrive together', () => {
  it.each(policies)(
    '%s: the limit at once all pass, one more is refused until the window ends',
    async (_name, count, perWindow, windowMs) => {
      expect(passed(await together(count, perWindow))).toBe(perWindow);
      const [refused] = await together(count, 1);
      expect(refused).toEqual({ allowed: false, retryAfterSec: windowMs / 1_000 - 20 });
      // The next window starts afresh.
      const [next] = await together(count, 1, { now: new Date(Math.ceil(NOW.getTime() / windowMs) * windowMs) });
      expect(next).toEqual({ allowed: true });
    },
  );

  it.each(policies)('%s: three times the limit at once, never more than the limit pass', async (_name, count, perWindow) => {
    const answers = await together(count, 3 * perWindow);
    // A count read back may include later requests' increments: some may be refused early, none is admitted late.
    expect(passed(answers)).toBeLessThanOrEqual(perWindow);
    for (const answer of answers) if (!answer.allowed) expect(answer.retryAfterSec).toBeGreaterThanOrEqual(1);
    // Every request was counted: the window is used up for whoever comes next.
    expect((await together(count, 1))[0].allowed).toBe(false);
  });

  it.each(policies)('%s: another address keeps its whole allowance', async (_name, count, perWindow) => {
    const [mine, theirs] = await Promise.all([
      together(count, 2 * perWindow),
      together(count, perWindow, { clientAddress: '198.51.100.9' }),
    ]);
    expect(passed(mine)).toBeLessThanOrEqual(perWindow);
    expect(passed(theirs)).toBe(perWindow);
  });
});

describe('the counter', () => {
  const limit: ClientLimit = {
    name: 'test-client',
    windowLetter: 'm',
    kind: 'test-client-minute',
    hashedAs: 'test-client',
    windowMs: 60_000,
    perWindow: 2,
  };

  it('one document per client and window, naming the address only by a keyed hash, expiring a day after its window', async () => {
    await countClientRequest(h.db, limit, { clientAddress: ` ${ADDRESS.toUpperCase()} `, secret: SECRET, now: NOW });
    await countClientRequest(h.db, limit, { clientAddress: ADDRESS, secret: SECRET, now: NOW });
    const docs = (await h.db.collection('rateLimits').get()).docs;
    expect(docs.map((d) => d.id)).toEqual([clientLimitId(limit, ADDRESS, SECRET, NOW)]);
    expect(docs[0].id).toMatch(/^test-client_[\w-]{22}_m\d+$/);
    expect(docs[0].data()).toEqual({ kind: 'test-client-minute', count: 2, expireAt: expect.anything() });
    expect(docs[0].get('expireAt').toDate()).toEqual(new Date('2026-03-03T10:01:00Z'));
    expect(JSON.stringify(docs[0].data()) + docs[0].id).not.toContain('203.0.113');
  });

  it('another secret, or another limit, gives the same address an unrelated key', () => {
    const id = clientLimitId(limit, ADDRESS, SECRET, NOW).split('_')[1];
    expect(clientLimitId(limit, ADDRESS, 'another-secret', NOW).split('_')[1]).not.toBe(id);
    expect(clientLimitId({ ...limit, hashedAs: 'other' }, ADDRESS, SECRET, NOW).split('_')[1]).not.toBe(id);
  });
});
