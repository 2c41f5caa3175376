import type { DocumentData, DocumentSnapshot, Firestore, Timestamp } from 'firebase-admin/firestore';
import { GUARDED_UPDATE_MAX_TRIES } from '../store/guarded-update';
import { addHeldWrite, addTake, awaitHolders, commitFenced, takeLease, writeHeld, type LeaseClock } from '../store/lease';
import { matchRef, readMatchVerdicts, type MatchVerdict } from './match-verdict';
import { PROMPT_VERSION, type VerdictPosting } from './wire';

/**
 * The claim on a pair's model call, matches/{uid}_{jobId} in state `scoring`: the store's one lease
 * (lib/store/lease.ts) on the verdict's own document. Taken before the model is asked, released
 * (deleted) when no answer came, overwritten by the answer, all fenced by the version the claim
 * wrote; a run that finds another run's live claim waits for its answer (score-once.ts).
 */

/** What a read pair calls for: its stored verdict, a claim, a wait for another run's, or nothing (superseded). */
export type ClaimDecision = { use: MatchVerdict } | 'claim' | 'wait' | 'superseded';

/** Who the verdict is for, as far as a claim cares: the stored verdict's name and the profile it was made for. */
export type ClaimSubscriber = { id: string; profileVersion: number };

/** The planner: what one read pair calls for, at `now`. */
export function decideClaim(snap: DocumentSnapshot<MatchVerdict>, subscriber: ClaimSubscriber, now: Date): ClaimDecision {
  if (!snap.exists) return 'claim';
  const m = snap.data()!;
  if (m.profileVersion > subscriber.profileVersion || m.promptVersion > PROMPT_VERSION) return 'superseded';
  if (m.profileVersion < subscriber.profileVersion || m.promptVersion < PROMPT_VERSION) return 'claim';
  if (m.state === 'scored' && m.fit !== null && m.reason !== null) return { use: m };
  if (m.state === 'scoring' && m.leaseUntil && m.leaseUntil.getTime() > now.getTime()) return 'wait';
  return 'claim';
}

/** A claim we hold: the version our take gave the pair's document, the fence of our next write to it. */
export type Claimed = { posting: VerdictPosting; version: Timestamp };

export type ClaimContext = {
  db: Firestore;
  subscriber: ClaimSubscriber;
  clock: () => Date;
  /** The fields of a claim taken at `now`. */
  claimFields: (jobId: string, now: Date) => Record<string, unknown>;
  /** Told what a pair not claimed by us calls for instead (a wait, a stored verdict, superseded). */
  notClaimed: (jobId: string, decision: Exclude<ClaimDecision, 'claim'>) => void;
};

type ReadPair = { posting: VerdictPosting; snap: DocumentSnapshot<MatchVerdict> };

/**
 * Takes the pair's claim: create() when it did not exist, else an update fenced by the version
 * read. A lost race reads again and decides again (another run's claim → wait; its verdict → use).
 */
async function claimOne(ctx: ClaimContext, { posting, snap }: ReadPair): Promise<Claimed | null> {
  const outcome = await takeLease<Exclude<ClaimDecision, 'claim'> | null, MatchVerdict, DocumentData>(
    matchRef(ctx.db, ctx.subscriber.id, posting.id),
    (seen) => {
      const decision = decideClaim(seen, ctx.subscriber, ctx.clock());
      return decision === 'claim' ? { take: ctx.claimFields(posting.id, ctx.clock()), as: null } : { done: decision };
    },
    { read: snap, maxTries: GUARDED_UPDATE_MAX_TRIES },
  );
  if ('taken' in outcome) return { posting, version: outcome.taken };
  // Lost every race: the pair kept changing under us, so someone else is on it.
  ctx.notClaimed(posting.id, ('done' in outcome && outcome.done) || 'wait');
  return null;
}

/**
 * Every pair of a batch claimed in one commit: in the common case (none claimed elsewhere since
 * the read) that is one round trip instead of one per pair. The commit is all or nothing, so if
 * any pair moved since it was read, nothing is written and each pair is claimed on its own.
 */
export async function claimPairs(ctx: ClaimContext, pairs: ReadPair[]): Promise<Claimed[]> {
  const now = ctx.clock();
  if (pairs.length > 1 && pairs.every((pair) => decideClaim(pair.snap, ctx.subscriber, now) === 'claim')) {
    const batch = ctx.db.batch();
    for (const { posting, snap } of pairs) addTake(batch, snap, ctx.claimFields(posting.id, now));
    const versions = await commitFenced(batch);
    if (versions) return pairs.map((pair, i) => ({ posting: pair.posting, version: versions[i] }));
  }
  return (await Promise.all(pairs.map((pair) => claimOne(ctx, pair)))).filter((c): c is Claimed => c !== null);
}

/** Gives a claim up: deleted only if it is still the version we wrote, so nothing of ours is left. */
export async function releaseClaim(db: Firestore, uid: string, claimed: Claimed): Promise<void> {
  await writeHeld(matchRef(db, uid, claimed.posting.id), claimed.version, null);
}

/**
 * The answers written over their claims in one commit, each fenced by its claim's version. If any
 * claim was taken over (its lease ran out), nothing is written and each is written on its own, so
 * the others still land; one taken over is not written (the other run's verdict stands).
 */
export async function storeAnswers(
  db: Firestore,
  uid: string,
  answers: { claimed: Claimed; fields: Record<string, unknown> }[],
): Promise<void> {
  const ref = (claimed: Claimed) => matchRef(db, uid, claimed.posting.id);
  if (answers.length > 1) {
    const batch = db.batch();
    for (const { claimed, fields } of answers) addHeldWrite(batch, ref(claimed), claimed.version, fields);
    if (await commitFenced(batch)) return;
  }
  await Promise.all(answers.map(({ claimed, fields }) => writeHeld(ref(claimed), claimed.version, fields)));
}

/**
 * The pairs another run is scoring: read again (one getAll a poll) until each is answered, its
 * claim is given up (a fault or the budget there), or the wait ends. Answers the pairs still held.
 */
export async function awaitOtherClaims(
  ctx: Pick<ClaimContext, 'db' | 'subscriber'>,
  waiting: Iterable<string>,
  input: {
    clock: LeaseClock;
    pollMs: number;
    waitMs: number;
    signal?: AbortSignal;
    settled: (jobId: string, decision: ClaimDecision) => void;
  },
): Promise<string[]> {
  return awaitHolders(waiting, {
    read: (jobIds) => readMatchVerdicts(ctx.db, ctx.subscriber.id, jobIds),
    settle: (jobId, snap) => {
      const decision = decideClaim(snap, ctx.subscriber, input.clock.now());
      if (decision === 'wait') return false;
      input.settled(jobId, decision);
      return true;
    },
    clock: input.clock,
    pollMs: input.pollMs,
    until: new Date(input.clock.now().getTime() + input.waitMs),
    signal: input.signal,
  });
}
