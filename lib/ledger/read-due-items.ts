import { Timestamp, type Firestore, type QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { ownsSubscriber, shardBuckets, type Shard } from '../runtime/shard';
import { SUBSCRIBERS_PER_BATCH } from '../store/in-batches';
import { deliveriesCollection, type Delivery } from './delivery';
import { bestFirst, type Due } from './due-items';
import { forInQueries } from './in-query';

/**
 * Due items asked per query; the flush walks them with a cursor until done or out of time. Each
 * query's results are taken as they arrive (a stream), a subscriber batch at a time, so this
 * bounds how long one query stays open, not the memory: that stays the batches in flight.
 */
const DUE_PAGE = 25_000;

/**
 * Subscribers with queued deliveries due by `now`, SUBSCRIBERS_PER_BATCH at a time, each whole and
 * best first, and each item read once. One query over (status, digestDueAt, uid, score desc) with
 * the due instant as its range: the range comes first in the index, so the query scans only what is
 * due (a run in which nobody is due scans no queued item), and within a slot a subscriber's items
 * arrive together. A subscriber is complete when the next one's first item arrives; one whose items
 * run past the end of a page is held back and completed from the next page. The query's results are
 * streamed and taken only as fast as the flush asks for the next batch, so memory stays a batch or
 * two, whatever the page size.
 *
 * Items arrive slot by slot, so a subscriber with items due at two slots (a missed run, a flush cut
 * short, a schedule moved) would come twice, and the second time find its digest claimed by the
 * first and wait a period: against "the next digest not yet claimed". So a batch handed on carries
 * all of its subscribers' due items. What the stream read before the batch was handed on is merged
 * into the subscriber's one entry; what it has not read yet (due at a later slot) is asked for
 * directly, IN_LIMIT subscribers a query over (status, uid, digestDueAt), and skipped when the
 * stream reaches it — once one read has found anything due at a later slot at all. The last batch
 * needs none of this: the stream has read everything by then.
 *
 * A shard's run, once every queued item carries its bucket (`bucketed`) and its count divides
 * SHARD_BUCKETS, asks only for its own buckets (`shardBucket in [...]`: 16 ÷ n values, within
 * Firestore's 30), so it reads its share of the due items instead of all of them. Otherwise a shard
 * reads every due item and keeps its own; either way each subscriber is checked against the shard.
 */
export async function* dueSubscribers(
  db: Firestore,
  input: { now: Date; pageSize?: number; batchSize?: number; shard?: Shard; bucketed?: boolean },
): AsyncGenerator<Due[]> {
  const pageSize = input.pageSize ?? DUE_PAGE;
  const batchSize = input.batchSize ?? SUBSCRIBERS_PER_BATCH;
  const dueBy = Timestamp.fromDate(input.now);
  const queued = deliveriesCollection(db).where('status', '==', 'queued');
  const buckets = input.bucketed ? shardBuckets(input.shard) : null;
  const filtered = buckets ? queued.where('shardBucket', 'in', buckets) : queued;
  // Items a subscriber batch already took by asking for its subscribers' later slots: the stream skips them.
  const taken = new Set<string>();
  let batch = new Map<string, Due>();
  const complete = (due: Due) => {
    if (!ownsSubscriber(input.shard, due.uid)) return;
    const entry = batch.get(due.uid);
    if (entry) entry.items.push(...due.items);
    else batch.set(due.uid, due);
  };
  const handOn = async (stillReading: boolean): Promise<Due[]> => {
    const handed = [...batch.values()];
    batch = new Map();
    if (stillReading) await takeLaterSlots(db, { due: handed, now: dueBy, taken });
    for (const due of handed) due.items.sort(bestFirst);
    return handed;
  };
  const query = filtered.where('digestDueAt', '<=', dueBy).orderBy('digestDueAt').orderBy('uid').orderBy('score', 'desc');
  let cursor: QueryDocumentSnapshot<Delivery> | undefined;
  let carried: Due | null = null;
  for (;;) {
    let size = 0;
    const page = (cursor ? query.startAfter(cursor) : query).limit(pageSize).stream() as AsyncIterable<QueryDocumentSnapshot<Delivery>>;
    for await (const doc of page) {
      size += 1;
      cursor = doc;
      const delivery = doc.data();
      if (carried && carried.uid !== delivery.uid) {
        complete(carried);
        carried = null;
        if (batch.size >= batchSize) yield await handOn(true);
      }
      // Checked after handing on: the batch just handed on may have taken this very item.
      if (taken.has(doc.id)) continue;
      const item = { id: doc.id, delivery, updateTime: doc.updateTime };
      if (carried) carried.items.push(item);
      else carried = { uid: delivery.uid, items: [item] };
    }
    if (size < pageSize) break;
  }
  if (carried) complete(carried);
  if (batch.size > 0) yield await handOn(false);
}

/**
 * Adds to each subscriber's entry their items due after the latest slot the stream has read for
 * them and by `now`, and records them as taken. Subscribers are asked together by that slot. One
 * read first asks whether anything at all is due after the earliest of those slots: usually
 * nothing is (a run has one slot due), and then no subscriber is asked.
 */
async function takeLaterSlots(db: Firestore, input: { due: Due[]; now: Timestamp; taken: Set<string> }): Promise<void> {
  const bySlot = new Map<number, Due[]>();
  for (const due of input.due) {
    const slot = Math.max(...due.items.map((i) => i.delivery.digestDueAt?.getTime() ?? 0));
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), due]);
  }
  const anyLater = await deliveriesCollection(db)
    .where('status', '==', 'queued')
    .where('digestDueAt', '>', Timestamp.fromMillis(Math.min(...bySlot.keys())))
    .where('digestDueAt', '<=', input.now)
    .select()
    .limit(1)
    .get();
  if (anyLater.empty) return;
  const asks = [...bySlot].flatMap(([slot, dues]) => forInQueries(dues).map((uids) => ({ slot, uids })));
  await Promise.all(
    asks.map(async ({ slot, uids }) => {
      const byUid = new Map(uids.map((due) => [due.uid, due]));
      const later = await deliveriesCollection(db)
        .where('status', '==', 'queued')
        .where('uid', 'in', [...byUid.keys()])
        .where('digestDueAt', '>', Timestamp.fromMillis(slot))
        .where('digestDueAt', '<=', input.now)
        .get();
      for (const doc of later.docs) {
        input.taken.add(doc.id);
        byUid.get(doc.data().uid)?.items.push({ id: doc.id, delivery: doc.data(), updateTime: doc.updateTime });
      }
    }),
  );
}
