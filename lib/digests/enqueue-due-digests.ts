import type { Firestore } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import { RENDER_CONCURRENCY } from '../ledger/claim-deliveries';
import type { StoredPosting } from '../feeds/postings-collection';
import { postingsCollection } from '../feeds/postings-collection';
import { MAX_BATCH_WRITES, readMany } from '../ledger/create-documents';
import { deliveriesCollection, type Delivery } from '../ledger/delivery';
import { addDays, utcDay } from '../ledger/timestamps';
import { commitGroups, type WriteGroup } from '../ledger/write-groups';
import type { EmailPayload } from '../mail/email-payload';
import type { ScoredPosting } from '../mail/compose-email';
import { digestEmailKey, newOutboxRow, outboxCollection } from '../outbox/outbox-row';
import { subscribersCollection, type Subscriber } from '../subscribers/subscriber';

export type ComposeDigest = (input: {
  subscriber: Subscriber;
  items: ScoredPosting[];
  moreCount: number;
  day: string;
}) => Promise<EmailPayload>;

/** `truncated`: more items were queued than one run reads; the rest waits for the next run. */
export type DigestStats = { due: number; claimed: number; skippedSubscribers: number; truncated: boolean };

/** One read per run bounds the flush; the rest waits for the next run (the ledger keeps it). */
const MAX_QUEUED_PER_RUN = 50_000;

/**
 * The daily flush's claim: from the first run at or after DIGEST_HOUR_UTC, each subscriber with
 * queued items gets one outbox row `digest_{uid}_{day}` carrying the top items by score. Its
 * create() *is* the check that today's digest has not been claimed, so later runs, overlapping
 * runs and retries all find the row and do nothing. The row and the items it takes (`sending`)
 * change in one batch; lower-scored items beyond DIGEST_MAX_ITEMS are closed as `skipped`.
 */
export async function enqueueDueDigests(
  deps: { db: Firestore; composeDigest: ComposeDigest },
  input: { now: Date; runId: string; digestHourUtc: number; maxItems: number; retentionDays: number },
): Promise<DigestStats> {
  const { db } = deps;
  const stats: DigestStats = { due: 0, claimed: 0, skippedSubscribers: 0, truncated: false };
  if (input.now.getUTCHours() < input.digestHourUtc) return stats;
  const day = utcDay(input.now);

  const queued = await deliveriesCollection(db)
    .where('status', '==', 'queued')
    .where('digestDate', '<=', day)
    .limit(MAX_QUEUED_PER_RUN)
    .get();
  const byUid = new Map<string, QueuedItem[]>();
  for (const doc of queued.docs) {
    const list = byUid.get(doc.get('uid')) ?? [];
    list.push({ id: doc.id, delivery: doc.data() });
    byUid.set(doc.get('uid'), list);
  }
  const uids = [...byUid.keys()];
  stats.due = uids.length;
  stats.truncated = queued.size === MAX_QUEUED_PER_RUN;
  if (uids.length === 0) return stats;

  const existingRows = await readMany(
    db,
    uids.map((uid) => outboxCollection(db).doc(digestEmailKey(uid, day))),
  );
  const subscribers = await readMany(
    db,
    uids.map((uid) => subscribersCollection(db).doc(uid)),
  );
  const plans: DigestPlan[] = [];
  const closures: WriteGroup[] = [];
  for (let i = 0; i < uids.length; i++) {
    if (existingRows[i].exists) continue; // today's digest is already claimed: newer items wait for tomorrow
    const items = byUid.get(uids[i])!.sort((a, b) => b.delivery.score - a.delivery.score);
    const subscriber = subscribers[i].data();
    if (!subscriber || subscriber.status !== 'active') {
      // Opt-outs win: an old queued item never revives.
      stats.skippedSubscribers += 1;
      closures.push(...closeItems(db, items, 'skipped', `subscriber_${subscriber?.status ?? 'deleted'}`));
      continue;
    }
    if (subscriber.mode !== 'daily') {
      // Switched to instant after these were queued (perhaps by a run that read the old mode): no digest.
      stats.skippedSubscribers += 1;
      closures.push(...closeItems(db, items, 'skipped', 'mode_changed'));
      continue;
    }
    const rest = items.slice(input.maxItems);
    plans.push({ subscriber, top: items.slice(0, input.maxItems), moreCount: rest.length });
    if (rest.length > 0) closures.push(...closeItems(db, rest, 'skipped', 'digest_cap'));
  }

  const contents = await readDigestContents(db, plans);
  const render = pLimit(RENDER_CONCURRENCY);
  const groups = await Promise.all(plans.map((plan) => render(() => digestGroup(deps, { ...plan, items: contents(plan), day, ...input }))));
  const committed = await commitGroups(db, groups);
  stats.claimed = committed.filter(Boolean).length;
  // Closing skipped items is idempotent (an update to the same final state), so it may run after.
  await commitGroups(db, closures);
  return stats;
}

function closeItems(db: Firestore, items: { id: string }[], status: 'skipped', reason: string): WriteGroup[] {
  const groups: WriteGroup[] = [];
  for (let i = 0; i < items.length; i += MAX_BATCH_WRITES) {
    const chunk = items.slice(i, i + MAX_BATCH_WRITES);
    groups.push({
      size: chunk.length,
      apply(batch) {
        for (const item of chunk) batch.update(deliveriesCollection(db).doc(item.id), { status, reason });
      },
    });
  }
  return groups;
}

type QueuedItem = { id: string; delivery: Delivery };
type DigestPlan = { subscriber: Subscriber; top: QueuedItem[]; moreCount: number };

/** Postings for every planned digest in one getAll sweep (the verdicts are on the deliveries), not a read per subscriber. */
async function readDigestContents(db: Firestore, plans: DigestPlan[]): Promise<(plan: DigestPlan) => ScoredPosting[]> {
  const jobIds = [...new Set(plans.flatMap((plan) => plan.top.map((t) => t.delivery.jobId)))];
  const postingSnaps = await readMany(
    db,
    jobIds.map((id) => postingsCollection(db).doc(id)),
  );
  const postings = new Map(jobIds.map((id, i) => [id, postingSnaps[i].data() as StoredPosting | undefined]));
  return (plan) =>
    plan.top.flatMap(({ delivery }) => {
      const posting = postings.get(delivery.jobId);
      return posting ? [{ posting, score: delivery.score, reasons: delivery.reasons }] : [];
    });
}

async function digestGroup(
  deps: { db: Firestore; composeDigest: ComposeDigest },
  input: DigestPlan & { items: ScoredPosting[]; day: string; now: Date; runId: string; retentionDays: number },
): Promise<WriteGroup> {
  const { db } = deps;
  const { subscriber, top, day } = input;
  const emailKey = digestEmailKey(subscriber.id, day);
  const payload = await deps.composeDigest({ subscriber, items: input.items, moreCount: input.moreCount, day });
  const row = newOutboxRow({
    uid: subscriber.id,
    kind: 'digest',
    deliveryIds: top.map((t) => t.id),
    payload,
    runId: input.runId,
    now: input.now,
    expireAt: addDays(input.now, input.retentionDays),
  });
  return {
    size: top.length + 1,
    apply(batch) {
      batch.create(outboxCollection(db).doc(emailKey), row);
      for (const t of top) batch.update(deliveriesCollection(db).doc(t.id), { status: 'sending', emailKey });
    },
  };
}
