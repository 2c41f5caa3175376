import type { Firestore } from 'firebase-admin/firestore';
import { CHANNEL_KIND_NAMES, channelFields } from '../channels/channel';
import { composeChannelDisconnected } from '../mail/compose-account-email';
import type { MailSettings } from '../mail/compose-email';
import { channelGoneEmailKey, newOutboxRow, outboxCollection } from '../outbox/outbox-row';
import { addDays } from '../store/timestamps';
import { guardedSubscriberUpdate } from '../subscribers/subscriber-writes';
import { subscribersCollection } from '../subscribers/subscriber';
import type { MessageRow } from './message-row';

/**
 * A destination answered "gone": the channel is disabled at once (its routes leave the match index
 * in the same write, so no run plans another message for it), and the subscriber is told by email,
 * the outbox row created in that same write: the email exists exactly when the channel was
 * disabled by this call, once per channel whoever sees the answer. Rows already queued for it
 * are skipped when leased (the channel is no longer active).
 */
export async function disableGoneChannel(
  deps: { db: Firestore; settings: MailSettings; retentionDays: number },
  input: { row: Pick<MessageRow, 'uid' | 'channelId'>; reason: string; runId: string; now: Date },
): Promise<boolean> {
  const { db } = deps;
  const { row, reason, now } = input;
  return guardedSubscriberUpdate<boolean>(
    subscribersCollection(db).doc(row.uid),
    async (snap) => {
      const subscriber = snap.data();
      const channels = subscriber?.channels ?? [];
      const channel = channels.find((c) => c.id === row.channelId);
      if (!subscriber || !channel || channel.status === 'disabled') return { done: false };
      const disabled = channels.map((c) =>
        c.id === channel.id ? { ...c, status: 'disabled' as const, disabledAt: now, disabledReason: reason } : c,
      );
      const tell = subscriber.status === 'active' || subscriber.status === 'paused';
      const payload = tell
        ? await composeChannelDisconnected({
            subscriber,
            channel: { kindName: CHANNEL_KIND_NAMES[channel.kind], label: channel.label },
            reason,
            settings: deps.settings,
            now,
          })
        : null;
      return {
        update: { ...channelFields(disabled), updatedAt: now },
        alongside: (batch) => {
          if (!payload) return;
          batch.create(
            outboxCollection(db).doc(channelGoneEmailKey(row.uid, channel.id)),
            newOutboxRow({
              uid: row.uid,
              kind: 'channel',
              deliveryIds: [],
              payload,
              runId: input.runId,
              now,
              expireAt: addDays(now, deps.retentionDays),
            }),
          );
        },
        result: true,
      };
    },
    { action: 'disabling a gone channel' },
  );
}
