import type { Config } from '../runtime/config';
import { addDays } from '../store/timestamps';
import { manualDigestEmailKey, newOutboxRow, outboxCollection } from '../outbox/outbox-row';
import { sendRowNow, type SendNowDeps, type SendNowResult } from '../outbox/send-now';
import { isDigestMode, subscriberId, subscribersCollection, type DeliveryMode, type SubscriberStatus } from '../subscribers/subscriber';

export type ResendDigestDeps = SendNowDeps & { config: Pick<Config, 'tuning' | 'RETENTION_DAYS'> };

export type ResendDigestResult =
  | { kind: 'not-found' }
  | { kind: 'refused'; status: SubscriberStatus }
  /** Instant or feed-only: they get no digests, so there is none of theirs to send again. */
  | { kind: 'not-digest'; mode: DeliveryMode }
  | { kind: 'no-digest' }
  | { kind: 'resent'; emailKey: string; copyOf: string; result: SendNowResult };

/**
 * Only for a subscriber on a digest now (daily or weekly). Sends a subscriber their latest digest again, byte for byte, under its own key
 * (`digest_{uid}_manual-{ts}`): the scheduled digest of the day is neither blocked nor resent,
 * and the deliveries it carried keep their outcome. The row is written first and sent through
 * the dispatcher's own lease and activity check, so an opt-out still wins and a send that dies
 * halfway is finished by the next cron run under the same key.
 */
export async function resendLatestDigest(deps: ResendDigestDeps, input: { email: string; now: Date }): Promise<ResendDigestResult> {
  const { db } = deps;
  const uid = subscriberId(input.email);
  const subscriber = (await subscribersCollection(db).doc(uid).get()).data();
  if (!subscriber) return { kind: 'not-found' };
  if (subscriber.status !== 'active') return { kind: 'refused', status: subscriber.status };
  // A digest from before a switch to instant would repeat postings their alerts have sent since.
  if (!isDigestMode(subscriber.mode)) return { kind: 'not-digest', mode: subscriber.mode };
  const latest = await outboxCollection(db)
    .where('uid', '==', uid)
    .where('kind', '==', 'digest')
    .orderBy('createdAt', 'desc')
    .limit(1)
    .get();
  if (latest.empty) return { kind: 'no-digest' };
  // Digests keep their payload when final (closeWrites); a row written before that rule may not.
  const payload = latest.docs[0].data().payload;
  if (!payload) return { kind: 'no-digest' };

  const emailKey = manualDigestEmailKey(uid, input.now);
  const runId = `manual-${input.now.getTime()}`;
  const row = newOutboxRow({
    uid,
    kind: 'digest',
    deliveryIds: [],
    payload,
    runId,
    now: input.now,
    expireAt: addDays(input.now, deps.config.RETENTION_DAYS),
  });
  await outboxCollection(db).doc(emailKey).create(row);
  return { kind: 'resent', emailKey, copyOf: latest.docs[0].id, result: await sendRowNow(deps, { emailKey, uid, runId }) };
}
