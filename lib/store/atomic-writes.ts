import { Timestamp, type Firestore, type WriteBatch } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import { isAlreadyExists } from './firestore-errors';
import { COMMIT_CONCURRENCY, MAX_BATCH_WRITES } from './create-documents';

/**
 * Writes that must land together or not at all, e.g. an alert's deliveries and its outbox row.
 * `bytes` estimates what the atomic write adds to a commit request when it carries large fields (an
 * email's payload), so batches stay under Firestore's 10 MiB request limit.
 */
export type AtomicWrite = { size: number; bytes?: number; apply(batch: WriteBatch): void };

/** Bytes packed into one commit; well under Firestore's 10 MiB per request. */
export const MAX_COMMIT_BYTES = 4_000_000;
/** A generous estimate of one delivery written onto its page (verdict reasons included). */
export const DELIVERY_BYTES = 600;
/** An email's payload as it travels in a commit, in UTF-8 bytes (the row stores it whole, plus its other fields). */
export const payloadBytes = (payload: { html: string; text: string; subject: string }) =>
  Buffer.byteLength(payload.html) + Buffer.byteLength(payload.text) + Buffer.byteLength(payload.subject) + 2_000;

/**
 * Commits many atomic writes in few round trips: they are packed into write batches (up to
 * COMMIT_CONCURRENCY in flight), and a write batch that loses a race (by default ALREADY_EXISTS on
 * one of its creates; for fenced updates, a lost precondition) is retried one atomic write at a
 * time, so only the atomic writes that really collided are reported lost (false) and the rest still land.
 */
export async function commitAtomicWrites(
  db: Firestore,
  atomicWrites: AtomicWrite[],
  isLoss: (error: unknown) => boolean = isAlreadyExists,
): Promise<boolean[]> {
  return (await commitAtomicWritesAt(db, atomicWrites, isLoss)).map((at) => at !== null);
}

/**
 * commitAtomicWrites, answering each atomic write's commit time instead of a boolean (null: lost). A batch
 * commits at one instant, so that time is the version every document it wrote now has: the
 * precondition a later fenced update of one of them needs (a row created already leased, say).
 */
export async function commitAtomicWritesAt(
  db: Firestore,
  atomicWrites: AtomicWrite[],
  isLoss: (error: unknown) => boolean = isAlreadyExists,
): Promise<(Timestamp | null)[]> {
  const results = new Array<Timestamp | null>(atomicWrites.length).fill(null);
  const commit = pLimit(COMMIT_CONCURRENCY);
  const batches: Promise<void>[] = [];
  let start = 0;
  while (start < atomicWrites.length) {
    let end = start;
    let writes = 0;
    let bytes = 0;
    const fits = (g: AtomicWrite) => writes + g.size <= MAX_BATCH_WRITES && (end === start || bytes + (g.bytes ?? 0) <= MAX_COMMIT_BYTES);
    while (end < atomicWrites.length && fits(atomicWrites[end])) {
      writes += atomicWrites[end].size;
      bytes += atomicWrites[end++].bytes ?? 0;
    }
    if (end === start) throw new Error(`an atomic write of ${atomicWrites[start].size} writes exceeds one batch`);
    const [from, to] = [start, end];
    batches.push(commit(() => commitPacked(db, atomicWrites, from, to, results, isLoss)));
    start = end;
  }
  await Promise.all(batches);
  return results;
}

/** The commit time of atomic writes that wrote nothing: landed, with no document to fence. */
const NOTHING_WRITTEN = Timestamp.fromMillis(0);

async function commitPacked(
  db: Firestore,
  atomicWrites: AtomicWrite[],
  start: number,
  end: number,
  results: (Timestamp | null)[],
  isLoss: (error: unknown) => boolean,
): Promise<void> {
  const batch = db.batch();
  for (let i = start; i < end; i++) atomicWrites[i].apply(batch);
  try {
    const written = await batch.commit();
    results.fill(written[0]?.writeTime ?? NOTHING_WRITTEN, start, end);
    return;
  } catch (error) {
    if (!isLoss(error)) throw error;
  }
  await Promise.all(
    atomicWrites.slice(start, end).map(async (atomicWrite, offset) => {
      const single = db.batch();
      atomicWrite.apply(single);
      try {
        const written = await single.commit();
        results[start + offset] = written[0]?.writeTime ?? NOTHING_WRITTEN;
      } catch (inner) {
        if (!isLoss(inner)) throw inner;
      }
    }),
  );
}
