import type { Firestore } from 'firebase-admin/firestore';
import type { SinkMessage } from '../../scripts/mail-sink/types';
import type { RecordedRequest } from '../../scripts/model-fake/types';
import { deliveriesCollection, deliveryId } from '../../lib/ledger/delivery';
import { readDeliveryOutcomes } from '../../lib/ops/delivery-outcome';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import { matchesCollection } from '../../lib/verdicts/match-verdict';
import { MAX_REASON_LENGTH, PROMPT_VERSION } from '../../lib/verdicts/wire';

/**
 * The verdict stage's invariants, counted from the outside like the queue checker:
 * what the model fake recorded, what matches/ and deliveries/ hold, and what the mail sink got.
 * Every list names the pairs (`{uid}_{jobId}`) or documents that break a rule; all empty means
 * the stage kept its promises.
 *
 * A request "answered" a pair when the fake recorded it without a fault: the fake then answers
 * every posting it was asked about. That holds only if no fault-free answer can reach Scout too
 * late, so a world checked with this injects `slow` only beyond AI_TIMEOUT_MS (a slow request
 * is then never an answer) and keeps AI_TIMEOUT_MS far above a loopback round trip.
 */
export type VerdictReport = {
  requests: number;
  /** Each recorded request by the fault that answered it ('none' for an answer). */
  byFault: Record<string, number>;
  /** Distinct pairs the model answered, and matches/ verdicts in state `scored`. */
  pairsAnswered: number;
  verdictsStored: number;
  /** Deliveries closed `skipped` with reason `not_a_fit`. */
  notAFit: number;
  /** Scored once: pairs the model answered more than once (asked again though a verdict was stored). */
  answeredTwice: string[];
  /** Every answer is kept, and nothing but an answer: pairs answered with no `scored` verdict, and verdicts nothing answered. */
  answeredNotStored: string[];
  storedNotAnswered: string[];
  /** `scored` verdicts whose fit is not a whole number from 0 to 100 (or whose other fields are off). */
  badVerdicts: string[];
  /** `scoring` claims left at the end: those whose lease has not run out by `now`, and those whose has. */
  liveClaims: string[];
  expiredClaims: string[];
  /** Deliveries whose fit is not the stored verdict's. */
  fitMismatch: string[];
  /** Fit below the subscriber's threshold, yet not `skipped` / `not_a_fit`; and `not_a_fit` without such a fit. */
  belowThresholdNotClosed: string[];
  notAFitWithoutLowFit: string[];
  /** Pairs with a fit below the threshold whose posting reached the subscriber in any email. */
  belowThresholdMailed: string[];
  /** Subscriber addresses or uids found in any recorded request. */
  identitiesSent: string[];
  /** Keyword matches with no delivery, or one neither sent nor closed as not_a_fit or by a cap: a fault must never cost one. */
  undecidedMatches: string[];
  /** Answered requests whose subscriber object is no subscriber's profile (something else was sent, or a pair cannot be named). */
  unknownProfiles: string[];
};

type WireRequest = {
  subscriber: { keywords: string[]; excludes: string[]; minPay: unknown; about: string };
  postings: { id: string }[];
};

/** What the model sees of a subscriber: requests carry no uid, so a pair is named through this. */
const profileKey = (s: WireRequest['subscriber']) => JSON.stringify([s.keywords, s.excludes, s.minPay, s.about]);

/** One request's subscriber (the first user message) and the posting it asks about (the last, alone). */
const wireOf = (request: RecordedRequest): WireRequest => {
  const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
  const users = messages.filter((m) => m.role === 'user');
  const { subscriber } = JSON.parse(users[0].content) as Pick<WireRequest, 'subscriber'>;
  const { posting } = JSON.parse(users.at(-1)!.content) as { posting: { id: string } };
  return { subscriber, postings: [posting] };
};

/** How a keyword match may end: sent, or closed because the model judged it below the threshold, or by a cap. */
const DECIDED = new Set(['sent', 'skipped:not_a_fit', 'skipped:alert_cap', 'skipped:digest_cap']);

export async function checkVerdicts(
  db: Firestore,
  input: {
    requests: RecordedRequest[];
    received: SinkMessage[];
    /** The last run's clock: a `scoring` claim whose lease ends after it is live. */
    now: Date;
    /** Every pair the subscribers' keywords match (`{uid}_{jobId}`), as the test's world defines them. */
    keywordMatches: string[];
  },
): Promise<VerdictReport> {
  const [users, matches, deliveries, jobs] = await Promise.all([
    subscribersCollection(db).get(),
    matchesCollection(db).get(),
    deliveriesCollection(db).get(),
    db.collection('jobs').get(),
  ]);
  const subscribers = users.docs.map((d) => d.data());
  const uidByProfile = new Map<string, string>();
  for (const s of subscribers) {
    const key = profileKey(s);
    if (uidByProfile.has(key)) throw new Error(`checkVerdicts needs distinct profiles: ${s.id} and ${uidByProfile.get(key)} share ${key}`);
    uidByProfile.set(key, s.id);
  }

  const report: VerdictReport = {
    requests: input.requests.length,
    byFault: {},
    pairsAnswered: 0,
    verdictsStored: 0,
    notAFit: 0,
    answeredTwice: [],
    answeredNotStored: [],
    storedNotAnswered: [],
    badVerdicts: [],
    liveClaims: [],
    expiredClaims: [],
    fitMismatch: [],
    belowThresholdNotClosed: [],
    notAFitWithoutLowFit: [],
    belowThresholdMailed: [],
    identitiesSent: [],
    unknownProfiles: [],
    undecidedMatches: [],
  };

  // Privacy: nothing that names the person leaves for the model, in any request, faulty or not.
  const wire = JSON.stringify(input.requests.map((r) => r.body));
  for (const s of subscribers) {
    if (wire.includes(s.email)) report.identitiesSent.push(s.email);
    if (wire.includes(s.id)) report.identitiesSent.push(`uid ${s.id}`);
  }

  const answers = new Map<string, number>();
  for (const request of input.requests) {
    const fault = request.fault ?? 'none';
    report.byFault[fault] = (report.byFault[fault] ?? 0) + 1;
    if (request.fault !== null) continue;
    const asked = wireOf(request);
    const uid = uidByProfile.get(profileKey(asked.subscriber));
    if (!uid) {
      report.unknownProfiles.push(profileKey(asked.subscriber));
      continue;
    }
    for (const posting of asked.postings) {
      const pair = deliveryId(uid, posting.id);
      answers.set(pair, (answers.get(pair) ?? 0) + 1);
    }
  }
  report.pairsAnswered = answers.size;
  for (const [pair, count] of answers) if (count > 1) report.answeredTwice.push(`${pair} ×${count}`);

  const stored = new Map<string, number>();
  for (const doc of matches.docs) {
    const m = doc.data();
    if (m.state === 'scoring') {
      const live = m.leaseUntil !== null && m.leaseUntil.getTime() > input.now.getTime();
      (live ? report.liveClaims : report.expiredClaims).push(`${doc.id} (run ${m.runId}, lease until ${m.leaseUntil?.toISOString()})`);
      continue;
    }
    report.verdictsStored += 1;
    stored.set(doc.id, m.fit!);
    const wellFormed =
      Number.isInteger(m.fit) &&
      m.fit! >= 0 &&
      m.fit! <= 100 &&
      doc.id === deliveryId(m.uid, m.jobId) &&
      typeof m.reason === 'string' &&
      m.reason.length > 0 &&
      m.reason.length <= MAX_REASON_LENGTH &&
      m.promptVersion === PROMPT_VERSION &&
      m.leaseUntil === null;
    if (!wellFormed) report.badVerdicts.push(`${doc.id}: ${JSON.stringify({ fit: m.fit, reason: m.reason, state: m.state })}`);
    if (!answers.has(doc.id)) report.storedNotAnswered.push(doc.id);
  }
  for (const pair of answers.keys()) if (!stored.has(pair)) report.answeredNotStored.push(pair);

  const threshold = new Map(subscribers.map((s) => [s.id, s.fitThreshold]));
  const titles = new Map(jobs.docs.map((d) => [d.id, d.get('title') as string]));
  const mailed = new Set<string>();
  for (const message of input.received) {
    for (const line of (message.text ?? '').split('\n')) if (line.startsWith('* ')) mailed.add(`${message.to.join(',')}|${line.slice(2)}`);
  }
  const emailOf = new Map(subscribers.map((s) => [s.id, s.email]));
  for (const snap of deliveries.docs) {
    const d = snap.data();
    const fit = d.fit ?? null;
    const low = fit !== null && fit < threshold.get(d.uid)!;
    if (d.reason === 'not_a_fit') report.notAFit += 1;
    if (fit !== null && stored.has(snap.id) && stored.get(snap.id) !== fit)
      report.fitMismatch.push(`${snap.id}: delivery ${fit}, verdict ${stored.get(snap.id)}`);
    if (low && (d.status !== 'skipped' || d.reason !== 'not_a_fit'))
      report.belowThresholdNotClosed.push(`${snap.id}: fit ${fit} < ${threshold.get(d.uid)}, ${d.status}/${d.reason}`);
    if (d.reason === 'not_a_fit' && !low) report.notAFitWithoutLowFit.push(`${snap.id}: fit ${fit}, threshold ${threshold.get(d.uid)}`);
    if (low && mailed.has(`${emailOf.get(d.uid)}|${titles.get(d.jobId)}`)) report.belowThresholdMailed.push(`${snap.id}: fit ${fit}`);
  }
  const outcomes = new Map(
    (
      await readDeliveryOutcomes(
        db,
        deliveries.docs.map((d) => d.data()),
      )
    ).map((o) => [deliveryId(o.uid, o.jobId), o]),
  );
  for (const pair of input.keywordMatches) {
    const o = outcomes.get(pair);
    const state = o ? (o.status === 'skipped' ? `skipped:${o.reason}` : o.status) : 'no delivery';
    if (!DECIDED.has(state)) report.undecidedMatches.push(`${pair}: ${state}`);
  }
  return report;
}
