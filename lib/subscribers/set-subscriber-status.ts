import type { Firestore } from 'firebase-admin/firestore';
import { guardedSubscriberUpdate } from './subscriber-writes';
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
  return guardedSubscriberUpdate<StatusResult>(
    ref,
    (snap) => {
      const subscriber = snap.data();
      if (!snap.exists || !subscriber) return { done: { kind: 'not-found' } };
      const decision = decideStatus(params.action, subscriber.status);
      const result: StatusResult = { from: subscriber.status, ...decision };
      if (decision.kind !== 'change') return { done: result };
      return { update: { status: decision.to, updatedAt: params.now }, result };
    },
    { action: `${params.action === 'pause' ? 'pausing' : 'resuming'}` },
  );
}
