import {
  FieldPath,
  FieldValue,
  type DocumentData,
  type DocumentReference,
  type DocumentSnapshot,
  type Firestore,
  type QueryDocumentSnapshot,
  type UpdateData,
} from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import { allShardTags, shardTag, type Shard } from '../runtime/shard';
import { MAX_BATCH_WRITES, readMany } from '../store/create-documents';
import { isLostRace } from '../store/firestore-errors';
import { guardedUpdate } from '../store/guarded-update';
import { addDays, DAY_MS } from '../store/timestamps';
import type { Budget, Posting } from './posting';
import { isLiveKey, newPostingKey, postingKeyIds, postingKeysCollection, type PostingKey } from './posting-keys';
import { postingsCollection, sightingToFirestore, type Sighting, type StoredPosting } from './postings-collection';

/** Unseen postings stored at once, each in its own transaction: enough to hide round trips, few enough not to contend with ourselves. */
export const STORE_CONCURRENCY = 16;
/** Sources a canonical posting lists at most: the card names them all, and the document must not grow with the data. */
export const MAX_SIGHTINGS = 10;
/** A copy seen this long after the job was first seen is a repost, not another board's listing of the same post. */
export const REPOST_AFTER_DAYS = 3;
/** A source's name on a card is the operator's or the adapter's, not the data's; capped all the same, since sightings live on one document. */
const MAX_LABEL_CHARS = 100;
/** Attempts of one posting's transaction before the source's read fails (and is retried whole next run). */
const STORE_MAX_ATTEMPTS = 10;

export type StoreOutcome = 'new' | 'duplicate' | 'known';

type StoreContext = { now: Date; runId: string; retentionDays: number; label: string; expireAt: Date };

/**
 * Stores the postings not seen before (jobs/, new ones only), at most `maxNew` of them, and
 * returns how many were new (`created`: documents this call stored, copies included), how many
 * of those were copies of a job stored before (`duplicates`), and how many were held back. A
 * posting published before the retention window is ignored here, before matching: its ledger
 * lines may already be pruned, and it must never look new again. Postings past `maxNew` are left
 * for the next run, in feed order (feeds list their newest first): one source cannot flood a run,
 * and nothing is dropped for it.
 *
 * Each unseen posting is stored in one transaction with its postingKeys/ and, for a copy, its
 * canonical posting (storePosting): one card per real job, whichever run or source got there first.
 */
export async function storeNewPostings(
  db: Firestore,
  input: { postings: Posting[]; now: Date; runId: string; retentionDays: number; maxNew: number; label: string },
): Promise<{ created: number; duplicates: number; held: number }> {
  const cutoff = addDays(input.now, -input.retentionDays);
  const fresh = input.postings.filter((p) => !p.publishedAt || p.publishedAt >= cutoff);
  const refs = fresh.map((p) => postingsCollection(db).doc(p.id));
  const snaps = await readMany(db, refs);
  const unseen = fresh.filter((_, i) => !snaps[i].exists);
  const taken = unseen.slice(0, input.maxNew);
  const expireAt = addDays(input.now, input.retentionDays);
  await keepListedPostings(db, { snaps, now: input.now, expireAt, retentionDays: input.retentionDays });
  const ctx: StoreContext = { now: input.now, runId: input.runId, retentionDays: input.retentionDays, label: input.label, expireAt };
  const limit = pLimit(STORE_CONCURRENCY);
  const outcomes = await Promise.all(taken.map((posting) => limit(() => storePosting(db, posting, ctx))));
  return {
    created: outcomes.filter((o) => o !== 'known').length,
    duplicates: outcomes.filter((o) => o === 'duplicate').length,
    held: unseen.length - taken.length,
  };
}

/**
 * One unseen posting, in one transaction: read jobs/{id} (there already: nothing to do), its keys,
 * and the canonical posting a live key names; then write together jobs/{id}, the keys that do
 * not hold yet, and for a copy the canonical's new sighting (and its reopening, for a repost or a
 * changed budget). Written together, so a run that finds jobs/{id} stored also finds the sighting
 * it brought on the canonical; and two runs storing two copies of one job at once both read the
 * same key, so one of them commits first and the other, retried, becomes its copy.
 */
export async function storePosting(db: Firestore, posting: Posting, ctx: StoreContext): Promise<StoreOutcome> {
  const jobs = postingsCollection(db);
  const keyRefs = postingKeyIds(posting).map((id) => postingKeysCollection(db).doc(id));
  return db.runTransaction(
    async (tx): Promise<StoreOutcome> => {
      // getAll is typed for refs of one type; each snapshot still reads through its own ref's converter.
      const [job, ...keys] = (await tx.getAll(...([jobs.doc(posting.id), ...keyRefs] as DocumentReference[]))) as [
        DocumentSnapshot<StoredPosting>,
        ...DocumentSnapshot<PostingKey>[],
      ];
      if (job.exists) {
        // Ours when an earlier attempt committed but its answer was lost: counted as what it was.
        const stored = job.data()!;
        return stored.runId === ctx.runId ? (stored.matchState === 'duplicate' ? 'duplicate' : 'new') : 'known';
      }
      const liveIds = [
        ...new Set(
          keys
            .map((k) => k.data())
            .filter((k) => isLiveKey(k, ctx.now))
            .map((k) => k!.canonicalId),
        ),
      ];
      const named = liveIds.length > 0 ? await tx.getAll(...liveIds.map((id) => jobs.doc(id))) : [];
      const existing = new Map(named.filter((s) => s.exists).map((s) => [s.id, s as DocumentSnapshot<StoredPosting>]));
      // The URL's key comes first (postingKeyIds): when the two keys name different postings, it wins.
      const canonicalId = keys.map((k) => k.data()).find((k) => isLiveKey(k, ctx.now) && existing.has(k.canonicalId))?.canonicalId;
      const canonical = canonicalId ? existing.get(canonicalId)!.data()! : null;
      const id = canonical?.id ?? posting.id;
      // A key that holds and names a stored posting stays; an absent, expired or dangling one now names this job's canonical.
      for (const key of keys) {
        const data = key.data();
        if (!isLiveKey(data, ctx.now) || !existing.has(data.canonicalId)) tx.set(key.ref, newPostingKey(id, ctx.now, ctx.retentionDays));
      }
      const sighting: Sighting = { source: posting.source, label: ctx.label.slice(0, MAX_LABEL_CHARS), url: posting.url, seenAt: ctx.now };
      const stored = { ...posting, runId: ctx.runId, fetchedAt: ctx.now, expireAt: ctx.expireAt, canonicalId: id };
      if (!canonical) {
        tx.create(jobs.doc(posting.id), { ...stored, matchState: 'pending', revision: 0, firstSeenAt: ctx.now, sightings: [sighting] });
        return 'new';
      }
      tx.create(jobs.doc(posting.id), { ...stored, matchState: 'duplicate' });
      tx.update(existing.get(id)!.ref.withConverter(null), sightingUpdate(canonical, posting, sighting, ctx));
      return 'duplicate';
    },
    { maxAttempts: STORE_MAX_ATTEMPTS },
  );
}

const sameBudget = (a: Budget | null, b: Budget | null) =>
  a === b ||
  (!!a &&
    !!b &&
    a.amount === b.amount &&
    (a.maxAmount ?? null) === (b.maxAmount ?? null) &&
    a.currency === b.currency &&
    a.kind === b.kind);

/**
 * What a copy changes on its canonical posting: the copy's source joins the sightings (or, seen
 * there before, its entry points at the newer listing). A repost — seen REPOST_AFTER_DAYS after
 * the job was first seen, or on a source that listed it before under another id — or a changed
 * budget reopens matching: the posting is `pending` again with a new `revision`, so subscribers
 * it now fits (a raised budget meets their minimum, they joined since) are reached; those already
 * reached have their deliveries/{uid}_{canonicalId} and are not reached twice.
 */
function sightingUpdate(canonical: StoredPosting, posting: Posting, sighting: Sighting, ctx: StoreContext): UpdateData<DocumentData> {
  const firstSeenAt = canonical.firstSeenAt ?? canonical.fetchedAt;
  // Postings stored before dedup carry no sightings: their own is rebuilt from what they hold.
  const sightings = canonical.sightings ?? [{ source: canonical.source, label: canonical.source, url: canonical.url, seenAt: firstSeenAt }];
  const before = sightings.find((s) => s.source === posting.source);
  const listed = before
    ? sightings.map((s) => (s === before ? { ...sighting, label: s.label || sighting.label } : s))
    : sightings.length < MAX_SIGHTINGS
      ? [...sightings, sighting]
      : sightings;
  // The same source listing it twice in one fetch is one listing shown twice, not a repost.
  const reposted =
    (before !== undefined && before.seenAt < ctx.now) || ctx.now.getTime() - firstSeenAt.getTime() >= REPOST_AFTER_DAYS * DAY_MS;
  const budgetChanged = posting.budget !== null && !sameBudget(canonical.budget, posting.budget);
  const update: UpdateData<DocumentData> = { sightings: listed.map(sightingToFirestore) };
  if (!reposted && !budgetChanged) return update;
  return {
    ...update,
    matchState: 'pending',
    matchedShards: FieldValue.delete(),
    revision: FieldValue.increment(1),
    // Listed again: kept as long as a new posting would be.
    expireAt: canonical.expireAt > ctx.expireAt ? canonical.expireAt : ctx.expireAt,
    ...(reposted
      ? {
          repostedAt: ctx.now,
          // Published again: the retention cutoff and the card go by the new listing.
          publishedAt: posting.publishedAt ?? ctx.now,
          url: posting.url ?? canonical.url,
        }
      : {}),
    ...(budgetChanged ? { budget: posting.budget, previousBudget: canonical.budget } : {}),
  };
}

/** Postings read per query while looking for those a shard has not matched yet. */
const PENDING_SCAN_BATCH = 1_000;
/** A shard skips at most this many postings other shards still hold open before giving the rest to the next run. */
const PENDING_SCAN_MAX = 20_000;

/**
 * Postings stored but not yet matched, including those a crashed run left behind. A shard skips
 * the postings it already matched (they stay `pending` until every shard has), reading past them
 * so a shard whose caller stopped cannot starve the others.
 */
export async function loadPendingPostings(
  db: Firestore,
  input: { now: Date; retentionDays: number; limit: number; shard?: Shard },
): Promise<StoredPosting[]> {
  const cutoff = addDays(input.now, -input.retentionDays);
  const tag = input.shard && shardTag(input.shard);
  const query = postingsCollection(db).where('matchState', '==', 'pending').orderBy(FieldPath.documentId());
  const found: StoredPosting[] = [];
  let cursor: QueryDocumentSnapshot<StoredPosting> | undefined;
  for (let scanned = 0; found.length < input.limit && scanned < PENDING_SCAN_MAX;) {
    const batchSize = tag ? PENDING_SCAN_BATCH : input.limit - found.length;
    const batch = await (cursor ? query.startAfter(cursor) : query).limit(batchSize).get();
    for (const doc of batch.docs) {
      const posting = doc.data();
      if (posting.publishedAt && posting.publishedAt < cutoff) continue;
      if (tag && posting.matchedShards?.includes(tag)) continue;
      if (found.length < input.limit) found.push(posting);
    }
    scanned += batch.size;
    if (batch.size < batchSize) break;
    cursor = batch.docs[batch.docs.length - 1];
  }
  return found;
}

/**
 * Closes matching for these postings once their deliveries are claimed, each at the `revision`
 * this run loaded and matched: a posting reopened since (a repost, a changed budget) is left
 * `pending` for the run that will match what it says now. A shard only marks the postings as
 * matched by itself; the posting closes when the shards of its count have all marked it. Every
 * write is guarded by the version read (one batch per slice; on a lost guard, that slice posting
 * by posting with guardedUpdate), so neither a reopening nor another shard's mark is overwritten.
 */
export async function markPostingsMatched(db: Firestore, postings: Pick<StoredPosting, 'id' | 'revision'>[], shard?: Shard): Promise<void> {
  const revisions = new Map(postings.map((p) => [p.id, p.revision ?? 0]));
  const tag = shard && shardTag(shard);
  const everyShard = shard ? allShardTags(shard.count) : [];
  /** The change that closes (or marks) this version of the posting, or null when there is none to make. */
  const closing = (snap: DocumentSnapshot<StoredPosting>): UpdateData<DocumentData> | null => {
    const posting = snap.data();
    if (!posting || posting.matchState !== 'pending' || (posting.revision ?? 0) !== revisions.get(snap.id)) return null;
    if (!tag) return { matchState: 'matched' };
    const marks = posting.matchedShards ?? [];
    if (marks.includes(tag)) return null;
    const all = [...marks, tag];
    return { matchedShards: all, ...(everyShard.every((t) => all.includes(t)) ? { matchState: 'matched' } : {}) };
  };
  const ids = [...revisions.keys()];
  for (let i = 0; i < ids.length; i += MAX_BATCH_WRITES) {
    const snaps = await readMany(
      db,
      ids.slice(i, i + MAX_BATCH_WRITES).map((id) => postingsCollection(db).doc(id)),
    );
    const batch = db.batch();
    const changed = snaps.flatMap((snap) => {
      const change = closing(snap);
      if (!change) return [];
      batch.update(snap.ref.withConverter(null), change, { lastUpdateTime: snap.updateTime! });
      return [snap];
    });
    if (changed.length === 0) continue;
    try {
      await batch.commit();
    } catch (error) {
      if (!isLostRace(error)) throw error;
      // Someone wrote one of them since the read: each is decided again on its own fresh version.
      await Promise.all(
        changed.map((snap) =>
          guardedUpdate(snap.ref, (fresh) => {
            const change = closing(fresh);
            return change ? { update: change, result: undefined } : { done: undefined };
          }),
        ),
      );
    }
  }
}

/**
 * A posting the feed still lists must outlive it: otherwise the TTL (or prune) would delete its
 * document while the feed still carries it, and the next fetch would store it as new — a second
 * alert for an undated item. So a listed posting's expiry moves forward whenever less than half
 * the retention window is left: about one write per posting per RETENTION_DAYS / 2, not per fetch.
 */
async function keepListedPostings(
  db: Firestore,
  input: { snaps: DocumentSnapshot<StoredPosting>[]; now: Date; expireAt: Date; retentionDays: number },
): Promise<void> {
  const renewBefore = addDays(input.now, input.retentionDays / 2);
  const stale = input.snaps.filter((snap) => snap.exists && (snap.data()!.expireAt ?? input.now) < renewBefore);
  for (let i = 0; i < stale.length; i += MAX_BATCH_WRITES) {
    const batch = db.batch();
    for (const snap of stale.slice(i, i + MAX_BATCH_WRITES)) batch.update(snap.ref, { expireAt: input.expireAt, lastListedAt: input.now });
    await batch.commit();
  }
}
