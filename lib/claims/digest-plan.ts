import type { Timestamp } from 'firebase-admin/firestore';
import type { EmailPayload } from '../mail/email-payload';
import { deliveryId, type Delivery } from '../ledger/delivery';
import { rankOf } from '../matching/rank';
import type { Due, DueItem } from '../ledger/due-items';
import type { QueuedItemUpdate } from '../ledger/update-queued-item';
import { digestEmailKey, newOutboxRow, type OutboxRow } from '../outbox/outbox-row';
import { settledAs } from '../outbox/settle-digest-items';
import { digestPeriod, nextDigestSlot, type DigestSchedule } from '../subscribers/digest-schedule';
import { isDigestMode, type Subscriber } from '../subscribers/subscriber';
import type { Judgement } from '../verdicts/judge-postings';

/** Items closed per atomic write beside the digest row: several subscribers' atomic writes still pack into one commit. */
const CLOSES_PER_ATOMIC_WRITE = 100;

/** A subscriber whose due items no digest row lists yet, with the period a digest would be claimed for. */
export type ToDecide = { due: Due; free: Delivery[]; subscriber: Subscriber | undefined; period: string };

/** An earlier digest row and the due items it lists. */
export type Listed = { row: OutboxRow; emailKey: string; items: DueItem[] };

/** Splits a subscriber's due items into those no earlier digest row lists, and those an earlier row holds. */
export function notYetListed(due: Due, rows: Map<string, OutboxRow | undefined>): { free: Delivery[]; listed: Listed[] } {
  const holder = new Map<string, Listed>();
  const listedBy = new Map<string, string>();
  for (const [key, row] of rows) {
    if (!row || row.uid !== due.uid) continue;
    for (const id of row.deliveryIds) listedBy.set(id, key);
  }
  const free: Delivery[] = [];
  for (const item of due.items) {
    const key = listedBy.get(item.id);
    if (!key) {
      free.push(item.delivery);
      continue;
    }
    const entry = holder.get(key) ?? { row: rows.get(key)!, emailKey: key, items: [] };
    entry.items.push(item);
    holder.set(key, entry);
  }
  return { free, listed: [...holder.values()] };
}

/**
 * What the flush does with the due items it read, before deciding any digest (pure):
 *   - items an earlier digest row lists are never offered again; when that row is final, they are
 *     marked with its outcome (`settles`: the marks did not land after it, a crash between the two);
 *   - items due in a period whose digest is already claimed without them are due in the next one:
 *     `moves` their `digestDueAt` to the next slot, guarded by the version read (an item that
 *     moved meanwhile is left to whoever moved it), so the flush stops finding them until then;
 *   - the rest are `toDecide`: their subscriber's digest for `periods[i]` (the period their latest
 *     slot falls in; none when no digest can go).
 */
export function sortDue(input: {
  due: Due[];
  subscribers: (Subscriber | undefined)[];
  schedules: (DigestSchedule | null)[];
  periods: (string | null)[];
  rows: Map<string, OutboxRow | undefined>;
  now: Date;
}): { toDecide: ToDecide[]; moves: QueuedItemUpdate[]; settles: { emailKey: string; row: OutboxRow; deliveryIds: string[] }[] } {
  const toDecide: ToDecide[] = [];
  const moves: QueuedItemUpdate[] = [];
  const listed: Listed[] = [];
  for (const [i, due] of input.due.entries()) {
    const split = notYetListed(due, input.rows);
    listed.push(...split.listed);
    if (split.free.length === 0) continue;
    const period = input.periods[i];
    // This period's digest is already claimed: items it does not list wait for the next one.
    if (period && input.rows.get(digestEmailKey(due.uid, period)))
      moves.push(...movesToNextSlot(due, split.free, input.schedules[i]!, input.now));
    else toDecide.push({ due, free: split.free, subscriber: input.subscribers[i], period: period ?? '' });
  }
  const settles = listed.flatMap((l) =>
    settledAs(l.row.status) ? [{ emailKey: l.emailKey, row: l.row, deliveryIds: l.items.map((i) => i.id) }] : [],
  );
  return { toDecide, moves, settles };
}

function movesToNextSlot(due: Due, free: Delivery[], schedule: DigestSchedule, now: Date): QueuedItemUpdate[] {
  const next = nextDigestSlot(schedule, now);
  const period = digestPeriod(schedule, next);
  const versions = versionsOf(due);
  return free.map((d) => ({ delivery: d, version: versions.get(d.jobId)!, fields: { digestDueAt: next, digestDate: period } }));
}

/** Each item's version as read, by job id: what its update is guarded by. */
const versionsOf = (due: Due) => new Map(due.items.map((item) => [item.delivery.jobId, item.updateTime]));

/**
 * What a flush does with one subscriber's queued deliveries due by `day` (pure: the run and the
 * dry run both decide with it). Opt-outs win: an old queued item never revives.
 */
export function decideDigest(input: {
  subscriber: Subscriber | undefined;
  due: Delivery[];
  uid: string;
  maxItems: number;
  /** The model's judgement of each item by job id, when the verdict stage judged them. */
  judgements?: Map<string, Judgement>;
}): {
  top: Delivery[];
  closed: Delivery[];
  moreCount: number;
  notAFit: number;
} {
  const { subscriber, judgements } = input;
  const withJudgement = (d: Delivery): Delivery => {
    const j = judgements?.get(d.jobId);
    return j ? { ...d, fit: j.fit, fitReason: j.fitReason, aiFallback: j.fallback } : d;
  };
  const close = (list: Delivery[], reason: string) => list.map((d) => ({ ...d, status: 'skipped' as const, reason }));
  const byScore = [...input.due].sort((a, b) => b.score - a.score || a.jobId.localeCompare(b.jobId));
  if (!subscriber || subscriber.status !== 'active') {
    return { top: [], closed: close(byScore, `subscriber_${subscriber?.status ?? 'deleted'}`), moreCount: 0, notAFit: 0 };
  }
  if (!isDigestMode(subscriber.mode)) {
    // Switched to instant after these were queued (perhaps by a run that read the old mode): no digest.
    return { top: [], closed: close(byScore, 'mode_changed'), moreCount: 0, notAFit: 0 };
  }
  // Digests rank by the model's fit when it judged an item, else by its keyword score.
  const items = input.due.map(withJudgement).sort((a, b) => rankOf(b) - rankOf(a) || a.jobId.localeCompare(b.jobId));
  const notAFit = items.filter((d) => judgements?.get(d.jobId)?.fits === false);
  const fits = items.filter((d) => judgements?.get(d.jobId)?.fits !== false);
  const rest = fits.slice(input.maxItems);
  return {
    top: fits.slice(0, input.maxItems),
    closed: [...close(notAFit, 'not_a_fit'), ...close(rest, 'digest_cap')],
    moreCount: rest.length,
    notAFit: notAFit.length,
  };
}

export type FlushPlan = {
  uid: string;
  subscriber: Subscriber | undefined;
  /** The period the digest is claimed for ('' when no digest can go: not a digest subscriber, or not active). */
  period: string;
  /** Deliveries the digest lists, best first, and the ones closed without it. */
  top: Delivery[];
  closed: Delivery[];
  moreCount: number;
  /** Items the model judged below the threshold (among `closed`). */
  notAFit: number;
  /** The verdict stage judged these items: the listed ones get their fit written too. */
  judged: boolean;
  /** Each item's version as read, by job id: what its close is guarded by. */
  versions: Map<string, Timestamp>;
};

/** A subscriber's digest as decided (decideDigest), with what its writes need: the period, the versions read. */
export function planDigest(
  { due, free, subscriber, period }: ToDecide,
  input: { maxItems: number; judged: boolean; judgements: Map<string, Judgement> | undefined },
): FlushPlan {
  return {
    uid: due.uid,
    subscriber,
    period,
    versions: versionsOf(due),
    judged: input.judged,
    ...decideDigest({ subscriber, due: free, uid: due.uid, maxItems: input.maxItems, judgements: input.judgements }),
  };
}

/**
 * The digest's row, from its email as composed within its byte budget: a digest too heavy for its
 * row (postings at every length cap) lists the `shown` best, and the rest join "N more" as capped.
 */
export function fitDigest(
  plan: FlushPlan,
  composed: { payload: EmailPayload; shown: number },
  input: { runId: string; now: Date; expireAt: Date },
): { plan: FlushPlan; row: OutboxRow } {
  const { payload, shown } = composed;
  const overflow = plan.top.slice(shown).map((d) => ({ ...d, status: 'skipped' as const, reason: 'digest_cap' }));
  const fitted = {
    ...plan,
    top: plan.top.slice(0, shown),
    closed: [...overflow, ...plan.closed],
    moreCount: plan.moreCount + overflow.length,
  };
  const row = newOutboxRow({
    uid: plan.uid,
    kind: 'digest',
    deliveryIds: fitted.top.map((d) => deliveryId(plan.uid, d.jobId)),
    payload,
    runId: input.runId,
    now: input.now,
    expireAt: input.expireAt,
  });
  return { plan: fitted, row };
}

/** One all-or-nothing part of a digest's writes: the row's create() (the first part only), and guarded updates of its items. */
export type DigestWrite = { emailKey: string; row: OutboxRow | null; updates: QueuedItemUpdate[] };

/**
 * The digest row with the first closes (all or nothing: a flush that loses the row's create()
 * closes nothing), then the rest of the closes in parts of their own. Each close is guarded by the
 * version the flush read, so an item that moved since (an opt-out, a mark) is never overwritten.
 * `row` is the row as it is created: pending for the dispatcher, or leased and packed into a send batch by the run's sender.
 */
export function digestWrites(plan: FlushPlan, row: OutboxRow | null): DigestWrite[] {
  const parts: DigestWrite[] = [];
  const emailKey = digestEmailKey(plan.uid, plan.period);
  const update = (d: Delivery, fields: Partial<Delivery>): QueuedItemUpdate => ({
    delivery: d,
    version: plan.versions.get(d.jobId)!,
    fields,
  });
  // Judged items the digest lists carry their fit too (the delivery says why it was sent), written with the row.
  const listed = row && plan.judged ? plan.top : [];
  for (let i = 0; i === 0 || i < plan.closed.length; i += CLOSES_PER_ATOMIC_WRITE) {
    const closes = plan.closed.slice(i, i + CLOSES_PER_ATOMIC_WRITE);
    const withRow = i === 0 ? row : null;
    const fitted = i === 0 ? listed : [];
    if (!withRow && closes.length === 0) break;
    parts.push({
      emailKey,
      row: withRow,
      updates: [
        ...closes.map((d) => update(d, { status: 'skipped', reason: d.reason, ...judgementFields(d, plan.judged) })),
        ...fitted.map((d) => update(d, judgementFields(d, true))),
      ],
    });
  }
  return parts;
}

/** Writes of a digest's first part: its row, its first closes, and the fit of the items it lists when judged. */
export const firstWriteSize = (plan: FlushPlan) =>
  1 + Math.min(plan.closed.length, CLOSES_PER_ATOMIC_WRITE) + (plan.judged ? plan.top.length : 0);

const judgementFields = (d: Delivery, judged: boolean): Partial<Delivery> =>
  judged ? { fit: d.fit ?? null, fitReason: d.fitReason ?? null, aiFallback: d.aiFallback ?? null } : {};
