import { describe, expect, it } from 'vitest';
import { floorMs, timesFloor } from '../../scripts/bench/floor';

const floor = { createsPerSec: 2_000, readsPerSec: 5_000 };

describe('the emulator floor: a phase against the time its counted reads and writes take at the floor’s rates', () => {
  it('adds the reads at the read rate and the writes at the create rate', () => {
    expect(floorMs({ reads: 5_000, writes: 0 }, floor)).toBe(1_000);
    expect(floorMs({ reads: 0, writes: 1_000 }, floor)).toBe(500);
    expect(floorMs({ reads: 10_500, writes: 15_500 }, floor)).toBeCloseTo(2_100 + 7_750, 9);
  });

  it('a phase 3× slower than its reads and writes alone is 3× its floor, on any machine', () => {
    expect(timesFloor(3_000, { reads: 5_000, writes: 0 }, floor)).toBe(3);
    // The same phase on a machine half as fast, floor and wall time both: the same ratio.
    expect(timesFloor(6_000, { reads: 5_000, writes: 0 }, { createsPerSec: 1_000, readsPerSec: 2_500 })).toBe(3);
  });

  it('a phase that asked nothing of the store has no ratio', () => {
    expect(timesFloor(120, { reads: 0, writes: 0 }, floor)).toBeNull();
  });
});
