import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Failpoint, FailpointName } from '../../lib/runtime/failpoints';
import { deferred, until } from '../support/deferred';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const T0 = new Date('2026-11-30T08:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000).toISOString();
let h: Harness;

beforeEach(async () => {
  h = await createHarness({}, { LOCK_TTL_MS: 10 * 60_000 });
});
afterEach(async () => h.close());

/** Holds the run the first time it reaches `point`, until the test lets it go. */
function holdAt(point: FailpointName) {
  const reached = deferred();
  const release = deferred();
  let held = false;
  const failpoint: Failpoint = async (name) => {
    if (name !== point || held) return;
    held = true;
    reached.resolve();
    await release.promise;
  };
  return { failpoint, reached: reached.promise, release: () => release.resolve() };
}

async function rows() {
  return (await h.db.collection('emails').get()).docs.map((d) => ({ key: d.id, status: d.get('status'), leaseOwner: d.get('leaseOwner') }));
}

describe('a zombie run (paused past its lock and lease TTL) cannot duplicate or overwrite', () => {
  it.each(['before-send', 'before-record'] as const)('instant alert, zombie held at %s', async (point) => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    h.serveFeed(postingsAbout('react', 2, { at: T0 }));
    const hold = holdAt(point);
    const zombie = h.run({ now: at(0), failpoint: hold.failpoint });
    await hold.reached;

    // 15 minutes later (by the run clock) the lock and the lease have both expired.
    const next = await h.cron({ now: at(15) });
    expect(next.body.instantEmails).toBe(1);
    const [row] = await rows();
    expect(row).toMatchObject({ status: 'sent', leaseOwner: next.body.runId });

    hold.release();
    const zombieResult = await zombie;
    expect(zombieResult.instantEmails).toBe(0);
    expect(await h.inbox()).toHaveLength(1);
    // The zombie's record was fenced: the row still names the run that took it over.
    expect(await rows()).toEqual([row]);
    expect((await h.deliveryOutcomes()).every((d) => d.status === 'sent')).toBe(true);
  });

  it('daily digest, zombie held after the send and before marking items sent', async () => {
    await h.subscribe({ email: 'dana@example.com', keywords: ['python'], mode: 'daily' });
    h.serveFeed(postingsAbout('python', 3, { at: new Date(at(-120)) }));
    await h.cron({ now: at(-120) });
    const hold = holdAt('before-record');
    const zombie = h.run({ now: at(5), failpoint: hold.failpoint });
    await hold.reached;
    await until(async () => (await h.inbox()).length === 1, 'the zombie to hand the digest to the provider');

    const next = await h.cron({ now: at(20) });
    expect(next.body.digests).toBe(1);
    hold.release();
    await zombie;
    expect(await h.inbox()).toHaveLength(1);
    expect((await rows())[0]).toMatchObject({ status: 'sent', leaseOwner: next.body.runId });
  });
});
