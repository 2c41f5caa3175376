import { describe, expect, inject, it } from 'vitest';
import { measureEmulatorFloor } from '../../scripts/bench/floor';

describe('the emulator floor, measured', () => {
  it('creates and reads back its scratch documents, and takes its rates from the repeats (the median)', async () => {
    process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
    process.env.METADATA_SERVER_DETECTION = 'none';
    const floor = await measureEmulatorFloor({ emulatorHost: inject('firestoreEmulatorHost'), documents: 1_100, repeats: 2 });
    expect(floor.runs).toHaveLength(2);
    expect(floor.createsPerSec).toBeGreaterThan(0);
    expect(floor.readsPerSec).toBeGreaterThan(0);
    const rates = floor.runs.map((r) => (1_100 / r.createMs) * 1000);
    expect(rates).toContain(floor.createsPerSec);
  });
});
