import type { Firestore } from 'firebase-admin/firestore';
import type { SinkMessage } from '../../scripts/mail-sink/types';
import { deliveriesCollection, deliveryId } from '../../lib/ledger/delivery';
import { readDeliveryOutcomes } from '../../lib/ops/delivery-outcome';
import { postingsCollection } from '../../lib/feeds/postings-collection';
import { matchPostings } from '../../lib/matching/match-postings';
import { listActiveSubscribers, subscriberId } from '../../lib/subscribers/subscriber';

/** Per kind of email, what reached subscribers counted by JOB (canonical posting), not by email. */
export type JobCounts = {
  due: number;
  received: number;
  lost: number;
  duplicated: number;
  unexpected: number;
  visibleFailures: number;
  dueLater: number;
};
export type CanonicalReport = {
  alert: JobCounts;
  digest: JobCounts;
  canonicals: number;
  copies: number;
  /** Deliveries keyed by a copy's id rather than its canonical's: a second ledger line for one job. */
  deliveriesOnCopies: string[];
  /** Item lines naming no canonical posting (a copy's own title would show here). */
  unknownItems: string[];
  /** The pairs behind the counts, for a failing seed's report: `kind uid_jobId (title)`. */
  lostPairs: string[];
  duplicatedPairs: string[];
  unexpectedPairs: string[];
};

const empty = (): JobCounts => ({ due: 0, received: 0, lost: 0, duplicated: 0, unexpected: 0, visibleFailures: 0, dueLater: 0 });

/**
 * The queue checker's counts (test/support/queue-checker.ts), with the JOB as the unit instead of
 * the email: copies of one job on several boards, and its reposts, are one canonical posting in
 * jobs/ (matchState != 'duplicate'), and what a subscriber may receive is decided on it.
 *
 * Due pairs = the keyword matcher (matchPostings) over the canonical postings as they finally
 * stand, against the active subscribers. That is the union of the fits of every revision only
 * because a canonical's fit set never shrinks: keywords come from the text, which copies share,
 * and the world that uses this checker only ever RAISES a budget (a copy carries the budget the
 * job has when it is listed; a repost raises it). So a subscriber who fit the first listing still
 * fits the final state, and one whom only the raised budget fits is due once too. A world where
 * a copy could lower a budget would need the union over revisions instead.
 *
 * - received: a due pair whose job's title was an item line in an email to the subscriber;
 * - duplicated: items beyond the first for one (subscriber, job), across alerts and digests;
 * - unexpected: an item for a pair that was never due;
 * - lost: due, never received, and no visible state saying why (failed/dead), nor queued for a
 *   digest day after `lastDigestDay`; a due pair without a delivery at all is lost.
 */
export async function checkCanonicalJobs(
  db: Firestore,
  received: SinkMessage[],
  input: { lastDigestDay: string },
): Promise<CanonicalReport> {
  const jobs = (await postingsCollection(db).get()).docs.map((d) => d.data());
  const canonicals = jobs.filter((p) => p.matchState !== 'duplicate');
  const canonicalIds = new Set(canonicals.map((p) => p.id));
  const byTitle = new Map(canonicals.map((p) => [p.title, p]));
  const subscribers = await listActiveSubscribers(db);
  const modeOf = new Map(subscribers.map((s) => [s.id, s.mode]));
  const kindOf = (uid: string) => (modeOf.get(uid) === 'daily' ? 'digest' : 'alert');
  const due = new Map(
    matchPostings(canonicals, subscribers)
      .filter((c) => !c.nearMiss)
      .map((c) => [deliveryId(c.subscriber.id, c.posting.id), { uid: c.subscriber.id, title: c.posting.title }]),
  );

  const report: CanonicalReport = {
    alert: empty(),
    digest: empty(),
    canonicals: canonicals.length,
    copies: jobs.length - canonicals.length,
    deliveriesOnCopies: [],
    unknownItems: [],
    lostPairs: [],
    duplicatedPairs: [],
    unexpectedPairs: [],
  };

  // A uid is base64url and may hold '_': pairs keep their uid beside the delivery id.
  const items = new Map<string, { uid: string; count: number }>();
  for (const message of received) {
    const uid = subscriberId(message.to.join(','));
    for (const line of (message.text ?? '').split('\n').filter((l) => l.startsWith('* '))) {
      const job = byTitle.get(line.slice(2));
      if (!job) {
        report.unknownItems.push(`${uid}: ${line}`);
        continue;
      }
      const pair = deliveryId(uid, job.id);
      items.set(pair, { uid, count: (items.get(pair)?.count ?? 0) + 1 });
    }
  }
  for (const [pair, { uid, count }] of items) {
    const kind = kindOf(uid);
    if (!due.has(pair)) {
      report[kind].unexpected += count;
      report.unexpectedPairs.push(`${kind} ${pair}`);
    }
    if (count > 1) {
      report[kind].duplicated += count - 1;
      report.duplicatedPairs.push(`${kind} ${pair} ×${count}`);
    }
  }

  const deliveries = (await deliveriesCollection(db).get()).docs.map((d) => d.data());
  for (const d of deliveries) if (!canonicalIds.has(d.jobId)) report.deliveriesOnCopies.push(deliveryId(d.uid, d.jobId));
  const outcomes = new Map((await readDeliveryOutcomes(db, deliveries)).map((o) => [deliveryId(o.uid, o.jobId), o]));
  const digestDateOf = new Map(deliveries.map((d) => [deliveryId(d.uid, d.jobId), d.digestDate ?? '']));
  for (const [pair, { uid, title }] of due) {
    const kind = kindOf(uid);
    const counts = report[kind];
    counts.due += 1;
    if (items.has(pair)) {
      counts.received += 1;
      continue;
    }
    const outcome = outcomes.get(pair);
    if (outcome?.status === 'failed') counts.visibleFailures += 1;
    else if (outcome?.status === 'queued' && digestDateOf.get(pair)! > input.lastDigestDay) counts.dueLater += 1;
    else {
      counts.lost += 1;
      report.lostPairs.push(`${kind} ${pair} (${title}): ${outcome ? outcome.status : 'no delivery'}`);
    }
  }
  return report;
}
