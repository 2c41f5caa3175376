import { describe, expect, it } from 'vitest';
import { hnWhoIsHiringAdapter } from '../../../lib/feeds/adapters/hn-whoishiring-adapter';
import { remoteOkAdapter } from '../../../lib/feeds/adapters/remoteok-adapter';
import { remotiveAdapter } from '../../../lib/feeds/adapters/remotive-adapter';
import { readOnce } from './read-adapter';

const CLOCKS = [
  // npm run demo replays this morning.
  '2026-11-30T06:00:00Z',
  // Just after midnight on the 1st: this month's thread is not posted yet, last month's is read.
  '2026-11-01T00:30:00Z',
  // And across a new year.
  '2026-01-01T00:30:00Z',
];

describe('the sample kinds are dated to the sample server’s clock, so a run at that clock finds fresh postings (and HN its thread)', () => {
  describe.each(CLOCKS)('at %s', (clock) => {
    const now = new Date(clock);
    it.each([
      ['remotive', remotiveAdapter, 5],
      ['remoteok', remoteOkAdapter, 5],
      ['hn-whoishiring', hnWhoIsHiringAdapter, 6],
    ] as const)('%s: every posting read, the newest an hour old, none past retention', async (_kind, adapter, count) => {
      const result = await readOnce(adapter, { params: {}, now, serverNow: now });
      if (result.status !== 'ok') throw new Error('expected postings');
      expect(result.postings).toHaveLength(count);
      const times = result.postings.map((p) => p.publishedAt!.getTime());
      expect(Math.max(...times)).toBe(now.getTime() - 3_600_000);
      expect(Math.min(...times)).toBeGreaterThan(now.getTime() - 30 * 86_400_000);
    });
  });
});
