import {
  FieldPath,
  type DocumentData,
  type DocumentReference,
  type DocumentSnapshot,
  type Firestore,
  type QueryDocumentSnapshot,
  type UpdateData,
} from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import { allShardTags, shardTag, type Shard } from '../runtime/shard';
import { COMMIT_CONCURRENCY, MAX_BATCH_WRITES, readMany } from '../store/create-documents';
import { isAlreadyExists, isLostRace } from '../store/firestore-errors';
import { guardedUpdate } from '../store/guarded-update';
import { addDays } from '../store/timestamps';
import type { Posting } from './posting';
import {
  isLiveKey,
  newPostingKey,
  postingKeyFields,
  postingKeyIds,
  postingKeysCollection,
  urlsNamingSeveralJobs,
  type PostingKey,
} from './posting-keys';
import { sightingOf, sightingUpdate } from './posting-sightings';
import { postingsCollection, type StoredPosting } from './postings-collection';
import { fenceAt } from '../store/lease';

export { MAX_SIGHTINGS } from './posting-sightings';

/** Postings stored one by one (a copy, a key to replace) at once: enough to hide round trips, few enough not to contend with ourselves. */
export const STORE_CONCURRENCY = 16;
/** Reads of one posting's store before the source's read fails (and is retried whole next run): each lost race is another writer's success. */
const STORE_MAX_ATTEMPTS = 10;

export type StoreOutcome = 'new' | 'duplicate' | 'known';

type StoreContext = {
  now: Date;
  runId: string;
  retentionDays: number;
  label: string;
  expireAt: Date;
  /** URLs this answer gives to several different jobs: not a sign of identity (urlsNamingSeveralJobs). */
  notJobUrls: ReadonlySet<string>;
};

/**
 * Stores the postings not seen before (jobs/, new ones only), at most `maxNew` of them, and
 * returns how many were new (`created`: documents this call stored, copies included), how many
 * of those were copies of a job stored before (`duplicates`), and how many were held back. A
 * posting published before the retention window is ignored here, before matching: its ledger
 * lines may already be pruned, and it must never look new again. Postings past `maxNew` are left
 * for the next run, in feed order (feeds list their newest first): one source cannot flood a run,
 * and nothing is dropped for it.
 *
 * One card per real job, whichever run or source got there first: a posting none of whose
 * postingKeys/ exists yet (a new job, the common case) is created with its keys in one batch of
 * create()s — the create is the check: a key or posting someone else created since the read fails
 * the batch, nothing of it lands, and its postings take the other way. Every other posting (a key
 * exists: a copy, or a key to replace) is stored on its own, its writes guarded (storePosting).
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
  const ctx: StoreContext = {
    now: input.now,
    runId: input.runId,
    retentionDays: input.retentionDays,
    label: input.label,
    expireAt,
    notJobUrls: urlsNamingSeveralJobs(input.postings),
  };
  const { created, others } = await createNewJobs(db, taken, ctx);
  // After the batches: a copy of a job created there must find its keys. A posting another run
  // stored meanwhile is done (its sighting was written with it): nothing to contend for.
  const stored = await readMany(
    db,
    others.map((p) => postingsCollection(db).doc(p.id)),
  );
  const limit = pLimit(STORE_CONCURRENCY);
  const outcomes = await Promise.all(
    others.filter((_, i) => !stored[i].exists).map((posting) => limit(() => storePosting(db, posting, ctx))),
  );
  return {
    created: created + outcomes.filter((o) => o !== 'known').length,
    duplicates: outcomes.filter((o) => o === 'duplicate').length,
    held: unseen.length - taken.length,
  };
}

/** Postings per batch of the new-job path: each is up to three create()s (the posting, its URL key, its fingerprint key). */
const NEW_JOBS_PER_BATCH = Math.floor(MAX_BATCH_WRITES / 3);

/**
 * The postings none of whose keys exists, created each as a new canonical posting with its keys,
 * in batches of create()s. A posting sharing a key with an earlier one of this call, and every
 * posting of a batch that lost a race (ALREADY_EXISTS), is handed back in `others` for
 * storePosting, which reads what is there now.
 */
async function createNewJobs(db: Firestore, postings: Posting[], ctx: StoreContext): Promise<{ created: number; others: Posting[] }> {
  const keyIds = postings.map((p) => postingKeyIds(p, ctx.notJobUrls));
  const allKeys = [...new Set(keyIds.flat())];
  const keySnaps = await readMany(
    db,
    allKeys.map((id) => postingKeysCollection(db).doc(id)),
  );
  const taken = new Set(allKeys.filter((_, i) => keySnaps[i].exists));
  const fresh: { posting: Posting; keys: string[] }[] = [];
  const others: Posting[] = [];
  postings.forEach((posting, i) => {
    if (keyIds[i].some((id) => taken.has(id))) return void others.push(posting);
    keyIds[i].forEach((id) => taken.add(id));
    fresh.push({ posting, keys: keyIds[i] });
  });
  const commit = pLimit(COMMIT_CONCURRENCY);
  const won = await Promise.all(
    Array.from({ length: Math.ceil(fresh.length / NEW_JOBS_PER_BATCH) }, (_, n) =>
      commit(async () => {
        const part = fresh.slice(n * NEW_JOBS_PER_BATCH, (n + 1) * NEW_JOBS_PER_BATCH);
        const batch = db.batch();
        for (const { posting, keys } of part) {
          batch.create(postingsCollection(db).doc(posting.id), newCanonical(posting, ctx));
          for (const id of keys) batch.create(postingKeysCollection(db).doc(id), newPostingKey(posting.id, ctx.now, ctx.retentionDays));
        }
        try {
          await batch.commit();
          return part.length;
        } catch (error) {
          if (!isAlreadyExists(error)) throw error;
          others.push(...part.map((c) => c.posting));
          return 0;
        }
      }),
    ),
  );
  return { created: won.reduce((a, b) => a + b, 0), others };
}

/** A posting stored as the one card of a new job: its own canonical, its own sighting first, matching open. */
const newCanonical = (posting: Posting, ctx: StoreContext): StoredPosting => ({
  ...posting,
  runId: ctx.runId,
  fetchedAt: ctx.now,
  expireAt: ctx.expireAt,
  canonicalId: posting.id,
  matchState: 'pending',
  revision: 0,
  firstSeenAt: ctx.now,
  sightings: [sightingOf(posting, ctx)],
});

/** jobs/{id} kept changing under this posting's store: nothing of ours was written; the source's read fails and is retried next run. */
export class PostingStoreExhausted extends Error {
  constructor(id: string, tries: number, cause: unknown) {
    super(`jobs/${id}: its keys or canonical posting kept changing while it was stored (${tries} tries); try again`, { cause });
    this.name = 'PostingStoreExhausted';
  }
}

/**
 * One unseen posting, stored together with its keys and, for a copy, its canonical posting: read
 * jobs/{id} (there already: nothing to do), its keys and the canonical posting a live key names;
 * then one batch writes jobs/{id} (create), the keys that do not hold yet (create, or an update
 * guarded by the version read) and for a copy the canonical's new sighting (and its reopening, for
 * a repost or a changed budget; an update guarded by the version read). The batch lands whole or
 * not at all, so a run that finds jobs/{id} stored also finds the sighting it brought on the
 * canonical; a batch that lost a race to another writer (ALREADY_EXISTS, a moved version) is
 * decided again on what is there now. Guarded writes rather than a transaction: losers learn at
 * once and re-read, where a transaction would wait on the winner's locks (seconds on the emulator).
 */
export async function storePosting(db: Firestore, posting: Posting, ctx: StoreContext): Promise<StoreOutcome> {
  const jobs = postingsCollection(db);
  const jobRef = jobs.doc(posting.id);
  const keyRefs = postingKeyIds(posting, ctx.notJobUrls).map((id) => postingKeysCollection(db).doc(id));
  let lastLoss: unknown = null;
  for (let attempt = 1; attempt <= STORE_MAX_ATTEMPTS; attempt++) {
    // getAll is typed for refs of one type; each snapshot still reads through its own ref's converter.
    const [job, ...keys] = (await db.getAll(...([jobRef, ...keyRefs] as DocumentReference[]))) as [
      DocumentSnapshot<StoredPosting>,
      ...DocumentSnapshot<PostingKey>[],
    ];
    if (job.exists) {
      // Ours when an earlier commit landed but its answer was lost: counted as what it was.
      const stored = job.data()!;
      return stored.runId === ctx.runId ? (stored.matchState === 'duplicate' ? 'duplicate' : 'new') : 'known';
    }
    const liveIds = [
      ...new Set(
        keys
          .map((k) => k.data())
          .filter((k) => isLiveKey(k, ctx.now))
          .map((k) => k.canonicalId),
      ),
    ];
    const named = liveIds.length > 0 ? await db.getAll(...liveIds.map((id) => jobs.doc(id))) : [];
    const existing = new Map(named.filter((s) => s.exists).map((s) => [s.id, s as DocumentSnapshot<StoredPosting>]));
    // The URL's key comes first (postingKeyIds): when the two keys name different postings, it wins.
    const canonicalId = keys.map((k) => k.data()).find((k) => isLiveKey(k, ctx.now) && existing.has(k.canonicalId))?.canonicalId;
    const canonicalSnap = canonicalId ? existing.get(canonicalId)! : null;
    const id = canonicalSnap?.id ?? posting.id;
    const batch = db.batch();
    // A key that holds and names a stored posting stays; an absent, expired or dangling one now names this job's canonical.
    for (const key of keys) {
      const data = key.data();
      if (isLiveKey(data, ctx.now) && existing.has(data.canonicalId)) continue;
      const fresh = newPostingKey(id, ctx.now, ctx.retentionDays);
      if (key.exists) batch.update(key.ref.withConverter(null), postingKeyFields(fresh), fenceAt(key.updateTime!));
      else batch.create(key.ref, fresh);
    }
    let outcome: StoreOutcome = 'new';
    if (!canonicalSnap) batch.create(jobRef, newCanonical(posting, ctx));
    else {
      outcome = 'duplicate';
      batch.create(jobRef, {
        ...posting,
        runId: ctx.runId,
        fetchedAt: ctx.now,
        expireAt: ctx.expireAt,
        canonicalId: id,
        matchState: 'duplicate',
      });
      batch.update(
        canonicalSnap.ref.withConverter(null),
        sightingUpdate(canonicalSnap.data()!, posting, sightingOf(posting, ctx), ctx),
        fenceAt(canonicalSnap.updateTime!),
      );
    }
    try {
      await batch.commit();
      return outcome;
    } catch (error) {
      if (!isLostRace(error)) throw error;
      lastLoss = error;
    }
  }
  throw new PostingStoreExhausted(posting.id, STORE_MAX_ATTEMPTS, lastLoss);
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
 * write is guarded by the version read (one write batch per part; on a lost guard, that part posting
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
      batch.update(snap.ref.withConverter(null), change, fenceAt(snap.updateTime!));
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
