/**
 * The tutorial version of one cycle, which `npm run bench` measures Scout against on the same data
 * and the same collections (jobs/ are stored by the caller). It is a foil, not a product — every
 * pattern docs/design.md §2 and §7 warn about, on purpose:
 *   - no keyword index: every posting is scored against every active subscriber (users × postings);
 *   - check-then-act: per candidate, one `get()` of deliveries/{uid}_{jobId}, then one `set()` if
 *     it is missing, awaited one after the other inside the loop;
 *   - one provider request per email, sent one at a time.
 * It is kept generous where that does not change its shape: one email per subscriber (not per
 * match), a 429 is waited out and retried instead of losing the email, and an instant delivery is
 * written once (`sending`, before the send) — a real tutorial would mark it sent afterwards, one
 * more write per candidate.
 */
import type { Firestore } from 'firebase-admin/firestore';
import type { Posting } from '../../lib/feeds/posting';
import { deliveryId } from '../../lib/ledger/delivery';
import { addDays, utcDay } from '../../lib/store/timestamps';
import type { Mailer } from '../../lib/mail/mailer';
import { scorePosting } from '../../lib/matching/score-posting';
import { listActiveSubscribers, type Subscriber } from '../../lib/subscribers/subscriber';

/** The baseline's own ledger: one document per pair, the shape a naive design would write (apart from Scout's pages). */
export const naiveDeliveries = (db: Firestore) => db.collection('naiveDeliveries');

export type NaiveCycleInput = {
  postings: Posting[];
  now: Date;
  runId: string;
  fromAddress: string;
  /**
   * Caps the provider-bound part: only the first `sendLimit` emails are sent, the rest are counted
   * in `emailsSkipped`. Sent one at a time under a rate limit, the send phase is linear in emails, so
   * a bench can send a sample and extrapolate: sendMs / emails × (emails + emailsSkipped).
   * Undefined or NaN means no cap.
   */
  sendLimit?: number;
};

export type NaiveCycleResult = {
  candidates: number;
  deliveriesWritten: number;
  emails: number;
  emailsSkipped: number;
  providerRequests: number;
  phases: { matchMs: number; claimMs: number; sendMs: number };
};

const MAX_ATTEMPTS = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runNaiveCycle(deps: { db: Firestore; mailer: Mailer }, input: NaiveCycleInput): Promise<NaiveCycleResult> {
  const { db, mailer } = deps;
  const { now, runId } = input;
  const result: NaiveCycleResult = {
    candidates: 0,
    deliveriesWritten: 0,
    emails: 0,
    emailsSkipped: 0,
    providerRequests: 0,
    phases: { matchMs: 0, claimMs: 0, sendMs: 0 },
  };
  // The naive baseline claims before its flush, so today's digest is never claimed yet.
  const digestDate = utcDay(now);
  const expireAt = addDays(now, 30);
  const toEmail = new Map<string, { subscriber: Subscriber; postings: Posting[] }>();

  // Match and claim are one loop; the time spent awaiting the claim's get/set is claimMs, the rest
  // (loading the users, scoring every pair) is matchMs.
  const loopStart = performance.now();
  const subscribers = await listActiveSubscribers(db);
  for (const posting of input.postings) {
    for (const subscriber of subscribers) {
      const verdict = scorePosting(subscriber, posting);
      if (!verdict.matched) continue;
      result.candidates += 1;
      const claimStart = performance.now();
      const ref = naiveDeliveries(db).doc(deliveryId(subscriber.id, posting.id));
      const existing = await ref.get();
      if (!existing.exists) {
        const instant = subscriber.mode === 'instant';
        await ref.set({
          uid: subscriber.id,
          jobId: posting.id,
          mode: subscriber.mode,
          status: instant ? 'sending' : 'queued',
          score: verdict.score,
          reasons: verdict.reasons,
          emailKey: null,
          digestDate: instant ? null : digestDate,
          reason: null,
          runId,
          createdAt: now,
          expireAt,
        });
        result.deliveriesWritten += 1;
        if (instant) {
          const entry = toEmail.get(subscriber.id) ?? { subscriber, postings: [] };
          entry.postings.push(posting);
          toEmail.set(subscriber.id, entry);
        }
      }
      result.phases.claimMs += performance.now() - claimStart;
    }
  }
  result.phases.matchMs = performance.now() - loopStart - result.phases.claimMs;

  const sendStart = performance.now();
  const emails = [...toEmail.values()];
  const limit = input.sendLimit;
  const toSend = emails.slice(0, limit !== undefined && Number.isFinite(limit) ? Math.max(0, limit) : emails.length);
  result.emailsSkipped = emails.length - toSend.length;
  for (const { subscriber, postings } of toSend) {
    const lines = postings.map((p) => `${p.title} ${p.url ?? ''}`.trim());
    const payload = {
      from: input.fromAddress,
      to: subscriber.email,
      subject: `${postings.length} new job${postings.length === 1 ? '' : 's'} for you`,
      text: lines.join('\n'),
      html: `<ul>${lines.map((l) => `<li>${l.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)}</li>`).join('')}</ul>`,
      headers: {},
    };
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      result.providerRequests += 1;
      const outcome = await mailer.send(payload, { idempotencyKey: `naive_${runId}_${subscriber.id}` });
      if (outcome.kind === 'accepted') result.emails += 1;
      if (outcome.kind !== 'refused' || !outcome.retryable) break;
      await sleep(outcome.retryAfterMs ?? 1000);
    }
  }
  result.phases.sendMs = performance.now() - sendStart;
  return result;
}
