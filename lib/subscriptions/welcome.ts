import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import type { StoredPosting } from '../feeds/postings-collection';
import { deliveryId, deliveryRef, readDeliveries, type Delivery } from '../ledger/delivery';
import { composeWelcome, type MailSettings } from '../mail/compose-email';
import { composeWithinBudget } from '../mail/email-budget';
import { matchPostings } from '../matching/match-postings';
import { newOutboxRow, outboxCollection, welcomeEmailKey, type OutboxRow } from '../outbox/outbox-row';
import { PREVIEW_WINDOW_DAYS } from '../preview/preview';
import { readRecentPostings } from '../preview/read-recent-postings';
import { recentPostingsForPreview } from '../preview/shared-window';
import type { Config } from '../runtime/config';
import { addDays } from '../store/timestamps';
import { describeNextEmail } from '../subscribers/describe-next-email';
import type { Subscriber } from '../subscribers/subscriber';

/**
 * The most postings a welcome carries. The signup preview lists the best 5 and counts the rest;
 * 10 keeps the first email a read of a minute or two while showing more than the preview did, and
 * it is well under an alert's 25 (MAX_ALERT_ITEMS), so the email stays far from MAX_EMAIL_BYTES.
 * Matches past it get no delivery: one the runs have not matched yet still reaches the subscriber
 * by the next alert or digest; the others are up to a week old, and new postings come from now on.
 */
export const WELCOME_MAX_ITEMS = 10;

/** Existing deliveries are read this many candidates at a time, best first, until the welcome is full. */
const CANDIDATES_PER_READ = 30;

/** What a welcome needs besides the subscriber: how to write its links and for how long its ledger lines live. */
export type WelcomeSettings = { mail: MailSettings; digestHourUtc: number; retentionDays: number };

export const welcomeSettingsOf = (config: Pick<Config, 'APP_URL' | 'MAIL_FROM' | 'LINK_SECRET' | 'DIGEST_HOUR_UTC' | 'RETENTION_DAYS'>) =>
  ({
    mail: { appUrl: config.APP_URL, from: config.MAIL_FROM, linkSecret: config.LINK_SECRET },
    digestHourUtc: config.DIGEST_HOUR_UTC,
    retentionDays: config.RETENTION_DAYS,
  }) satisfies WelcomeSettings;

export type WelcomePlan = {
  emailKey: string;
  row: OutboxRow;
  /** One per posting it carries, `sending` with the row's key, as an instant alert's: the claim that no run offers them again. */
  deliveries: Delivery[];
  /** Adds the plan's creates to the batch that activates the subscriber: all of it lands, or none. */
  write: (batch: WriteBatch) => void;
};

/**
 * The welcome of a subscriber being activated by the signup `nonce`: the best matches of the
 * preview's window (its shared read, or a read of its own when the preview's budget is spent),
 * by the run's own matching, leaving out postings the subscriber already has a delivery for (a
 * re-signup within the retention). Null when nothing is left, and for a feed subscriber, who
 * asked for no email. Reads only: the caller writes `write` with the activation, where every
 * create is its own check.
 */
export async function planWelcome(
  db: Firestore,
  input: { subscriber: Subscriber; nonce: string; now: Date; runId: string; settings: WelcomeSettings },
): Promise<WelcomePlan | null> {
  const { subscriber, now, settings } = input;
  if (subscriber.mode === 'feed') return null;
  const shared = await recentPostingsForPreview(db, now);
  const recent = shared.kind === 'read' ? shared.recent : await readRecentPostings(db, { now });
  const best = matchPostings(recent.postings, [subscriber]).sort(
    (a, b) => b.score - a.score || b.posting.fetchedAt.getTime() - a.posting.fetchedAt.getTime(),
  );
  const fresh: typeof best = [];
  for (let i = 0; i < best.length && fresh.length < WELCOME_MAX_ITEMS; i += CANDIDATES_PER_READ) {
    const candidates = best.slice(i, i + CANDIDATES_PER_READ);
    const existing = await readDeliveries(
      db,
      candidates.map((m) => deliveryId(subscriber.id, m.posting.id)),
    );
    for (const m of candidates) if (!existing.get(deliveryId(subscriber.id, m.posting.id))?.exists) fresh.push(m);
  }
  const chosen = fresh.slice(0, WELCOME_MAX_ITEMS);
  if (chosen.length === 0) return null;

  const nextEmail = describeNextEmail(subscriber, now, settings.digestHourUtc);
  const { payload, shown } = await composeWithinBudget(chosen, (items) =>
    composeWelcome({
      subscriber,
      items: items.map((m) => ({ posting: m.posting, score: m.score, reasons: m.reasons })),
      windowDays: PREVIEW_WINDOW_DAYS,
      nextEmail,
      settings: settings.mail,
      now,
    }),
  );
  const carried = chosen.slice(0, shown);
  const emailKey = welcomeEmailKey(subscriber.id, input.nonce);
  const expireAt = addDays(now, settings.retentionDays);
  const deliveries = carried.map((m) => welcomeDelivery(subscriber, m.posting, m, { emailKey, runId: input.runId, now, expireAt }));
  const row = newOutboxRow({
    uid: subscriber.id,
    kind: 'welcome',
    deliveryIds: deliveries.map((d) => deliveryId(d.uid, d.jobId)),
    payload,
    runId: input.runId,
    now,
    expireAt,
  });
  return {
    emailKey,
    row,
    deliveries,
    write: (batch) => {
      batch.create(outboxCollection(db).doc(emailKey), row);
      for (const d of deliveries) batch.create(deliveryRef(db, d.uid, d.jobId), d);
    },
  };
}

function welcomeDelivery(
  subscriber: Subscriber,
  posting: StoredPosting,
  match: { score: number; reasons: string[] },
  at: { emailKey: string; runId: string; now: Date; expireAt: Date },
): Delivery {
  return {
    uid: subscriber.id,
    jobId: posting.id,
    mode: subscriber.mode,
    status: 'sending',
    score: match.score,
    reasons: match.reasons,
    emailKey: at.emailKey,
    digestDate: null,
    reason: null,
    runId: at.runId,
    createdAt: at.now,
    sentAt: null,
    expireAt: at.expireAt,
  };
}
