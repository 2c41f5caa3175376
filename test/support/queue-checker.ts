import type { Firestore } from 'firebase-admin/firestore';
import type { SinkMessage } from '../../scripts/mail-sink/types';
import { deliveriesCollection } from '../../lib/ledger/delivery';
import { readDeliveryOutcomes } from '../../lib/ops/delivery-outcome';

/** DESIGN §2.9: what a queue checker counts, per kind of email. */
export type KindCounts = {
  attempted: number;
  accepted: number;
  received: number;
  lost: number;
  duplicated: number;
  unexpected: number;
  recovered: number;
  visibleFailures: number;
};
export type CheckReport = { alert: KindCounts; digest: KindCounts; stuck: string[]; duplicatePostings: string[] };

const empty = (): KindCounts => ({
  attempted: 0,
  accepted: 0,
  received: 0,
  lost: 0,
  duplicated: 0,
  unexpected: 0,
  recovered: 0,
  visibleFailures: 0,
});
const FINAL_ROWS = new Set(['sent', 'failed', 'dead', 'skipped']);

/**
 * Compares what the ledger says was due with what the mail sink actually received:
 * - lost: due and never received, without a visible failed/dead state;
 * - duplicated: the same email (key) received twice, or one posting reaching a subscriber twice;
 * - unexpected: received though no outbox row asked for it;
 * - recovered: sent after more than one attempt (a crash, a timeout, a 5xx or a 429 on the way);
 * - stuck: anything not in a final state after the settle runs.
 */
export async function checkDeliveries(db: Firestore, received: SinkMessage[], input: { lastDigestDay: string }): Promise<CheckReport> {
  const report: CheckReport = { alert: empty(), digest: empty(), stuck: [], duplicatePostings: [] };
  const rows = await db.collection('emails').get();
  // A message is matched to its outbox row by content (recipient, subject, text): single sends
  // carry the email key, but a batch carries the batch key, so the key alone cannot tell.
  const identity = (to: string, subject: string, text: string | null) => JSON.stringify([to.toLowerCase(), subject, text ?? '']);
  const byIdentity = new Map<string, SinkMessage[]>();
  for (const message of received) {
    const id = identity(message.to.join(','), message.subject, message.text);
    byIdentity.set(id, [...(byIdentity.get(id) ?? []), message]);
  }
  const rowIdentity = new Map(rows.docs.map((d) => [d.id, identity(d.get('payload.to'), d.get('payload.subject'), d.get('payload.text'))]));
  const known = new Set(rowIdentity.values());
  for (const [id, messages] of byIdentity) {
    if (!known.has(id)) {
      const kind = messages[0].subject.startsWith('Your Scout digest') ? 'digest' : 'alert';
      report[kind].unexpected += messages.length;
    }
  }
  for (const doc of rows.docs) {
    const kind = doc.get('kind') as 'alert' | 'digest';
    const counts = report[kind];
    const status = doc.get('status') as string;
    const got = byIdentity.get(rowIdentity.get(doc.id)!)?.length ?? 0;
    counts.attempted += 1;
    counts.received += Math.min(got, 1);
    if (got > 1) counts.duplicated += got - 1;
    if (status === 'sent') {
      counts.accepted += 1;
      if (got === 0) counts.lost += 1; // the ledger says sent, the inbox disagrees
      if ((doc.get('attempts') ?? 0) > 1) counts.recovered += 1;
    } else if (status === 'failed' || status === 'dead') {
      counts.visibleFailures += 1;
    }
    if (!FINAL_ROWS.has(status)) report.stuck.push(`emails/${doc.id} is ${status}`);
  }

  // One posting must never reach a subscriber twice, whichever emails carried it.
  const seen = new Set<string>();
  for (const message of received) {
    const titles = (message.text ?? '').split('\n').filter((l) => l.startsWith('* '));
    for (const title of titles) {
      const id = `${message.to.join(',')}|${title}`;
      if (seen.has(id)) report.duplicatePostings.push(id);
      seen.add(id);
    }
  }

  const deliveries = (await deliveriesCollection(db).get()).docs.map((d) => d.data());
  const outcomes = await readDeliveryOutcomes(db, deliveries);
  const digestDateOf = new Map(deliveries.map((d) => [`${d.uid}_${d.jobId}`, d.digestDate ?? '']));
  for (const o of outcomes) {
    if (o.status === 'sending' || o.status === 'queued') {
      const dueLater = o.status === 'queued' && digestDateOf.get(`${o.uid}_${o.jobId}`)! > input.lastDigestDay;
      if (!dueLater) report.stuck.push(`deliveries/${o.uid}_${o.jobId} is ${o.status}`);
    }
  }
  // A digest that was due but whose row ended dead is a visible failure; one with no row at all would be lost.
  return report;
}
