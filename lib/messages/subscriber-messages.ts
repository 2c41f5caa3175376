import type { ChannelRoute } from '../channels/channel';
import { footerLinks, type MailSettings } from '../mail/compose-email';
import { planMessages, type MessageItem, type PlannedMessage } from './plan-messages';

/** A subscriber's channel messages of one run: its alerts and its digest, with the run's links, clock and retention. */
export type SubscriberMessages = {
  alert(items: MessageItem[], deliveryIds: string[], setKey: string): PlannedMessage[];
  digest(items: MessageItem[], deliveryIds: string[], setKey: string, period: string, moreBeyond: number): PlannedMessage[];
};

/** Null for a subscriber with no active channel: most of them, and no work at all for those. */
export type SubscriberMessagesOf = (subscriber: { id: string; linkVersion?: number; routes?: ChannelRoute[] }) => SubscriberMessages | null;

/**
 * The run's maker of subscribers' channel messages: the signed links every message ends with
 * (preferences, where a channel is paused or removed, and the archive) are issued here, with the
 * run's clock, as an email's are.
 */
export function subscriberMessagesOf(run: { settings: MailSettings; runId: string; now: Date; expireAt: Date }): SubscriberMessagesOf {
  return (subscriber) => {
    const routes = subscriber.routes ?? [];
    if (routes.length === 0) return null;
    const links = footerLinks(run.settings, subscriber, run.now);
    const context = {
      uid: subscriber.id,
      links: { preferences: links.preferencesUrl, archive: links.archiveUrl },
      runId: run.runId,
      now: run.now,
      expireAt: run.expireAt,
    };
    return {
      alert: (items, deliveryIds, setKey) => planMessages({ routes, kind: 'alert', setKey, deliveryIds, items, context }),
      digest: (items, deliveryIds, setKey, period, moreBeyond) =>
        planMessages({ routes, kind: 'digest', setKey, deliveryIds, items, period, moreBeyond, context }),
    };
  };
}
