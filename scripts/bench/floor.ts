/**
 * The emulator's floor on this machine: how fast it takes batched create()s and answers getAll
 * reads when nothing but the store is asked of it, measured in the same run and on the same
 * emulator as Scout's runs, just before them. A phase's floor is the time its counted reads and
 * writes would take at those rates; its wall time over that floor says how far Scout is from the
 * store it runs on, so figures from a fast machine and a noisy one compare by ratio, not by seconds.
 *
 * The documents go through Scout's own store primitives (createDocuments: batches of 500, a few in
 * flight; readMany: getAll in chunks), into a scratch project of their own, and are shaped like a
 * delivery, the document Scout writes most. Every write a phase makes is priced as a create:
 * updates, deletes and creates cost the emulator about the same.
 */
import { randomBytes } from 'node:crypto';
import { Timestamp, type DocumentReference } from 'firebase-admin/firestore';
import { createDocuments, readMany } from '../../lib/store/create-documents';
import { createFirestore } from '../../lib/store/firestore';
import { clearEmulatorProject } from '../stack/firestore-emulator';

export type EmulatorFloor = {
  /** Documents created and then read back in each repeat. */
  documents: number;
  repeats: number;
  /** Medians over the repeats. */
  createsPerSec: number;
  readsPerSec: number;
  /** Each repeat as measured, in the order they ran. */
  runs: { createMs: number; readMs: number }[];
};

export type FloorCounts = { reads: number; writes: number };

/** The time, in ms, the counted reads and writes take at the floor's rates. */
export const floorMs = (counts: FloorCounts, floor: Pick<EmulatorFloor, 'createsPerSec' | 'readsPerSec'>): number =>
  (counts.reads / floor.readsPerSec + counts.writes / floor.createsPerSec) * 1000;

/** Wall time as a multiple of the floor; null when the phase asked nothing of the store (a floor of 0). */
export function timesFloor(ms: number, counts: FloorCounts, floor: Pick<EmulatorFloor, 'createsPerSec' | 'readsPerSec'>): number | null {
  const f = floorMs(counts, floor);
  return f > 0 ? ms / f : null;
}

/** The middle value (the upper of the two middle ones for an even count: a repeat that ran, not an average). */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** About a delivery's fields and size: ids, a status, a score with its reasons, timestamps. */
function deliveryShaped(i: number, runId: string, now: Date) {
  const uid = `YmVuY2gke2l9QGV4YW1wbGUuY29t${i}`;
  return {
    uid,
    jobId: `bench_${(i * 2654435761) % 1_000_003}`,
    mode: i % 2 === 0 ? 'instant' : 'daily',
    status: i % 2 === 0 ? 'sending' : 'queued',
    score: 40 + (i % 60),
    reasons: ['“kw7” in the title', '“remote” in the text'],
    emailKey: i % 2 === 0 ? `alert_${uid}_${runId}` : null,
    digestDate: i % 2 === 0 ? null : '2026-11-30',
    reason: null,
    runId,
    createdAt: Timestamp.fromDate(now),
    sentAt: null,
    expireAt: Timestamp.fromMillis(now.getTime() + 30 * 86_400_000),
  };
}

export async function measureEmulatorFloor(input: { emulatorHost: string; documents?: number; repeats?: number }): Promise<EmulatorFloor> {
  const documents = input.documents ?? 5_000;
  const repeats = input.repeats ?? 3;
  const projectId = `bench-floor-${randomBytes(3).toString('hex')}`;
  await clearEmulatorProject(input.emulatorHost, projectId);
  const db = createFirestore({ projectId });
  const now = new Date();
  const runs: EmulatorFloor['runs'] = [];
  try {
    for (let r = 0; r < repeats; r++) {
      // Fresh ids each repeat: a create() on an id that exists would fail, and a read of a warm one flatter.
      const runId = `floor-${r}`;
      const docs = Array.from({ length: documents }, (_, i) => ({
        ref: db.collection('benchFloor').doc(`r${r}_${i}`) as DocumentReference<ReturnType<typeof deliveryShaped>>,
        data: deliveryShaped(i, runId, now),
      }));
      let started = performance.now();
      const { existed } = await createDocuments(db, docs, runId);
      const createMs = performance.now() - started;
      if (existed.length > 0) throw new Error(`floor: ${existed.length} scratch documents existed before their create()`);
      started = performance.now();
      const snaps = await readMany(
        db,
        docs.map((d) => d.ref),
      );
      const readMs = performance.now() - started;
      if (snaps.some((s) => !s.exists)) throw new Error('floor: a scratch document created was not read back');
      runs.push({ createMs, readMs });
    }
  } finally {
    await db.terminate();
    await clearEmulatorProject(input.emulatorHost, projectId);
  }
  return {
    documents,
    repeats,
    createsPerSec: median(runs.map((r) => (documents / r.createMs) * 1000)),
    readsPerSec: median(runs.map((r) => (documents / r.readMs) * 1000)),
    runs,
  };
}
