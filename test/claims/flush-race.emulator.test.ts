import { afterEach, describe, expect, it } from 'vitest';
import type { Failpoint } from '../../lib/runtime/failpoints';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';

let h: Harness;
afterEach(async () => h?.close());

describe('a digest flush that loses its claim to a run that already sent the digest', () => {
  it('looks again, finds nothing left due, and ends the run cleanly: one digest, nothing thrown', async () => {
    h = await createHarness();
    await h.subscribe({ email: 'dana@example.com', keywords: ['react'], mode: 'daily', timezone: 'Europe/Berlin', digestHour: 9 });
    h.serveFeed(postingsAbout('react', 2, { at: new Date('2026-11-30T06:00:00Z') }));
    await h.run({ now: '2026-11-30T06:00:00Z' });

    // Run A reads the due items, then, just before its claim commits, run B claims, sends and marks the digest whole.
    let raced = false;
    const raceOnce: Failpoint = async (name) => {
      if (name !== 'before-digest-commit' || raced) return;
      raced = true;
      expect(await h.run({ now: '2026-11-30T08:05:00Z', lockName: 'run-b' })).toMatchObject({ kind: 'ran', digests: 1 });
    };
    const a = await h.run({ now: '2026-11-30T08:05:00Z', lockName: 'run-a', failpoint: raceOnce });

    expect(raced).toBe(true);
    expect(a).toMatchObject({ kind: 'ran', digests: 0, failures: 0 });
    expect(await h.inbox()).toHaveLength(1);
    expect((await h.deliveryOutcomes()).map((d) => d.status)).toEqual(['sent', 'sent']);
  });
});
