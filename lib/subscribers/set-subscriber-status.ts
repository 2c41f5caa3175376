import type { Firestore } from 'firebase-admin/firestore';
import { isLostPrecondition } from '../store/firestore-errors';
import { subscriberId, subscribersCollection, type SubscriberStatus } from './subscriber';

export type StatusAction = 'pause' | 'resume';

export type StatusDecision = { kind: 'change'; to: SubscriberStatus } | { kind: 'unchanged' } | { kind: 'refused'; reason: string };

/**
 * Pause and resume move only between active and paused. Neither can touch someone who
 * unsubscribed (pausing them would make them resumable) or who never confirmed (resuming them
 * would skip the double opt-in): opt-outs win.
 */
export function decideStatus(action: StatusAction, current: SubscriberStatus): StatusDecision {
  const [from, to] = action === 'pause' ? (['active', 'paused'] as const) : (['paused', 'active'] as const);
  if (current === to) return { kind: 'unchanged' };
  if (current === from) return { kind: 'change', to };
  if (current === 'unsubscribed') return { kind: 'refused', reason: 'they unsubscribed; only they can sign up again' };
  if (current === 'pending') return { kind: 'refused', reason: 'they have not confirmed their email yet' };
  return { kind: 'refused', reason: `unknown status "${current}"` };
}

export type StatusResult = { kind: 'not-found' } | ({ from: SubscriberStatus } & StatusDecision);

const MAX_ATTEMPTS = 5;

/**
 * Reads the subscriber and writes the new status with the read's update time as precondition:
 * if anything changed the document in between (they unsubscribed a moment ago), the write fails
 * and the decision is taken again on the fresh state, never on the stale one.
 */
export async function setSubscriberStatus(
  db: Firestore,
  params: { email: string; action: StatusAction; now: Date },
): Promise<StatusResult> {
  const ref = subscribersCollection(db).doc(subscriberId(params.email));
  for (let attempt = 1; ; attempt += 1) {
    const snap = await ref.get();
    const subscriber = snap.data();
    if (!snap.exists || !subscriber) return { kind: 'not-found' };
    const decision = decideStatus(params.action, subscriber.status);
    if (decision.kind !== 'change') return { from: subscriber.status, ...decision };
    try {
      await ref.update({ status: decision.to, updatedAt: params.now }, { lastUpdateTime: snap.updateTime! });
      return { from: subscriber.status, ...decision };
    } catch (error) {
      if (!isLostPrecondition(error) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}
