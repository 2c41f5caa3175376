import type { Firestore } from 'firebase-admin/firestore';
import pLimit from 'p-limit';
import type { EmailPayload } from '../mail/email-payload';
import type { Candidate } from '../matching/match-postings';
import { alertEmailKey, newOutboxRow, outboxCollection } from '../outbox/outbox-row';
import type { Subscriber } from '../subscribers/subscriber';
import { createDocuments, readMany } from './create-documents';
import { deliveriesCollection, deliveryId, type Delivery } from './delivery';
import { utcDay, addDays } from './timestamps';
import { commitGroups, type WriteGroup } from './write-groups';

export const RENDER_CONCURRENCY = 16;

/** An alert lists a subscriber's best new matches of one cycle; past this, they are recorded as skipped. */
export const MAX_ALERT_ITEMS = 25;

export type ComposeAlert = (subscriber: Subscriber, items: Candidate[]) => Promise<EmailPayload>;

export type ClaimStats = { matches: number; instantDeliveries: number; alertEmails: number; queued: number; skipped: number };

/** The UTC day whose digest an item queued now belongs to: today's if today's has not started yet. */
export function digestDayFor(now: Date, digestHourUtc: number): string {
  return now.getUTCHours() < digestHourUtc ? utcDay(now) : utcDay(addDays(now, 1));
}

/**
 * Turns matches into ledger lines. Every write here is a create() on an id computed from the data,
 * so concurrent runs on the same postings split the work and never both claim a pair:
 *   deliveries/{uid}_{jobId}   with its verdict (score, reasons)
 *     instant → `sending`, written in one batch with its alert's outbox row
 *     daily   → `queued` for the digest
 * The creates go out without reading first: postings are matched once, so a collision means an
 * overlapping run, and only then does a losing batch pay for reads (see createDocuments, claimAlerts).
 */
export async function claimDeliveries(
  deps: { db: Firestore; composeAlert: ComposeAlert },
  input: { candidates: Candidate[]; runId: string; now: Date; retentionDays: number; digestHourUtc: number },
): Promise<ClaimStats> {
  const { db } = deps;
  const { candidates, runId, now } = input;
  const expireAt = addDays(now, input.retentionDays);
  const stats: ClaimStats = { matches: candidates.length, instantDeliveries: 0, alertEmails: 0, queued: 0, skipped: 0 };
  if (candidates.length === 0) return stats;

  const delivery = (c: Candidate, fields: Pick<Delivery, 'status' | 'emailKey' | 'digestDate' | 'reason'>) => ({
    ref: deliveriesCollection(db).doc(deliveryId(c.subscriber.id, c.posting.id)),
    data: {
      uid: c.subscriber.id,
      jobId: c.posting.id,
      mode: c.subscriber.mode,
      score: c.score,
      reasons: c.reasons,
      runId,
      createdAt: now,
      expireAt,
      ...fields,
    } satisfies Delivery,
  });

  const digestDate = digestDayFor(now, input.digestHourUtc);
  const daily = candidates.filter((c) => c.subscriber.mode === 'daily');
  const queued = await createDocuments(
    db,
    daily.map((c) => delivery(c, { status: 'queued', emailKey: null, digestDate, reason: null })),
    runId,
  );
  stats.queued = queued.created.length;

  const bySubscriber = groupBySubscriber(candidates.filter((c) => c.subscriber.mode === 'instant'));
  const overflow: Candidate[] = [];
  const alerts = [...bySubscriber.values()].map((items) => {
    const ranked = [...items].sort((a, b) => b.score - a.score);
    overflow.push(...ranked.slice(MAX_ALERT_ITEMS));
    return ranked.slice(0, MAX_ALERT_ITEMS);
  });
  const skipped = await createDocuments(
    db,
    overflow.map((c) => delivery(c, { status: 'skipped', emailKey: null, digestDate: null, reason: 'alert_cap' })),
    runId,
  );
  stats.skipped = skipped.created.length;

  const claimed = await claimAlerts({ db, composeAlert: deps.composeAlert, delivery, runId, now, expireAt }, alerts);
  stats.alertEmails = claimed.emails;
  stats.instantDeliveries = claimed.deliveries;
  return stats;
}

async function withoutExistingDeliveries(db: Firestore, candidates: Candidate[]): Promise<Candidate[]> {
  const snaps = await readMany(
    db,
    candidates.map((c) => deliveriesCollection(db).doc(deliveryId(c.subscriber.id, c.posting.id))),
  );
  return candidates.filter((_, i) => !snaps[i].exists);
}

function groupBySubscriber(candidates: Candidate[]): Map<string, Candidate[]> {
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const list = groups.get(c.subscriber.id) ?? [];
    list.push(c);
    groups.set(c.subscriber.id, list);
  }
  return groups;
}

type AlertContext = {
  db: Firestore;
  composeAlert: ComposeAlert;
  delivery: (
    c: Candidate,
    fields: Pick<Delivery, 'status' | 'emailKey' | 'digestDate' | 'reason'>,
  ) => { ref: FirebaseFirestore.DocumentReference<Delivery>; data: Delivery };
  runId: string;
  now: Date;
  expireAt: Date;
};

/**
 * Each subscriber's alert is one all-or-nothing group: its deliveries (`sending`) and its outbox
 * row. A group that collides with a concurrent run is re-planned from what that run left
 * unclaimed, under a new key (the key is the set of deliveries it carries).
 */
async function claimAlerts(ctx: AlertContext, alerts: Candidate[][]): Promise<{ emails: number; deliveries: number }> {
  let pending = alerts.filter((items) => items.length > 0);
  let emails = 0;
  let deliveries = 0;
  for (let round = 0; pending.length > 0; round++) {
    if (round > 10) throw new Error('alert claims kept colliding; giving up this cycle (the next run resumes)');
    // Rendering is CPU and memory, not I/O: a few at a time keeps thousands of React renders from peaking together.
    const render = pLimit(RENDER_CONCURRENCY);
    const groups = await Promise.all(pending.map((items) => render(() => alertGroup(ctx, items))));
    const committed = await commitGroups(
      ctx.db,
      groups.map((g) => g.write),
    );
    const lost: Candidate[][] = [];
    for (let i = 0; i < groups.length; i++) {
      if (committed[i] || (await wasOurs(ctx, groups[i].emailKey))) {
        emails += 1;
        deliveries += pending[i].length;
      } else {
        lost.push(pending[i]);
      }
    }
    pending = (await Promise.all(lost.map((items) => withoutExistingDeliveries(ctx.db, items)))).filter((items) => items.length > 0);
  }
  return { emails, deliveries };
}

async function alertGroup(ctx: AlertContext, items: Candidate[]): Promise<{ emailKey: string; write: WriteGroup }> {
  const subscriber = items[0].subscriber;
  const ids = items.map((c) => deliveryId(subscriber.id, c.posting.id));
  const emailKey = alertEmailKey(subscriber.id, ids);
  const payload = await ctx.composeAlert(subscriber, items);
  const row = newOutboxRow({
    uid: subscriber.id,
    kind: 'alert',
    deliveryIds: ids,
    payload,
    runId: ctx.runId,
    now: ctx.now,
    expireAt: ctx.expireAt,
  });
  return {
    emailKey,
    write: {
      size: items.length + 1,
      apply(batch) {
        for (const c of items) {
          const d = ctx.delivery(c, { status: 'sending', emailKey, digestDate: null, reason: null });
          batch.create(d.ref, d.data);
        }
        batch.create(outboxCollection(ctx.db).doc(emailKey), row);
      },
    },
  };
}

/** A commit whose answer was lost and whose retry then collided with itself is still ours. */
async function wasOurs(ctx: AlertContext, emailKey: string): Promise<boolean> {
  const snap = await outboxCollection(ctx.db).doc(emailKey).get();
  return snap.exists && snap.get('runId') === ctx.runId;
}
