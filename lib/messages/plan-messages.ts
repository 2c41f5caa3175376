import type { ChannelRoute } from '../channels/channel';
import type { ChannelContent, ChannelLinks, ChannelPosting } from '../channels/channel-content';
import { fitForChannel, renderChannelMessage } from '../channels/formats/render-channel-message';
import { cardTitle } from '../feeds/clean-posting-text';
import { hostName } from '../feeds/source-name';
import type { StoredPosting } from '../feeds/postings-collection';
import { employerLine } from '../mail/compose-email';
import { formatBudget } from '../pay/format-pay';
import { messageKey, newMessageRow, type MessageKind, type MessageRow } from './message-row';

/** The chat a Telegram body names until the dispatcher addresses it. */
export const UNADDRESSED_CHAT = '0';

/** A message to create: its key and its row, created with the deliveries (or the digest claim) it belongs to. */
export type PlannedMessage = { key: string; row: MessageRow };

/** One posting a message carries, with the verdict that made it. */
export type MessageItem = {
  posting: Pick<StoredPosting, 'id' | 'title' | 'url' | 'company' | 'location' | 'remote' | 'budget' | 'source' | 'sightings'>;
  score: number;
  reasons: string[];
  fit?: number | null;
};

/** What every message of a subscriber's carries besides postings: the signed links (built by the caller, which holds the secret). */
export type MessageContext = { uid: string; links: ChannelLinks; runId: string; now: Date; expireAt: Date };

/**
 * The messages of one delivery set for the subscriber's routes of that cadence (pure): one per
 * channel, keyed by the set's email key and the channel, each body rendered once, here, and frozen
 * in its row. `items` are best first; what a platform's message cannot hold is counted as "more"
 * (the archive has them all).
 */
export function planMessages(input: {
  routes: readonly ChannelRoute[];
  kind: MessageKind;
  /** The email key of the set: `alert_{uid}_{hash}` or `digest_{uid}_{period}`. */
  setKey: string;
  deliveryIds: string[];
  items: MessageItem[];
  /** Digests: the period the digest is for. */
  period?: string;
  /** Items of the set beyond `items` (a digest's `moreCount`). */
  moreBeyond?: number;
  context: MessageContext;
}): PlannedMessage[] {
  const routes = input.routes.filter((r) => (input.kind === 'alert' ? r.instant : r.digest));
  if (routes.length === 0 || input.items.length === 0) return [];
  const postings = input.items.map(channelPosting);
  return routes.flatMap((route) => {
    const shown = Math.max(1, fitForChannel(route.kind, postings));
    const more = postings.length - shown + (input.moreBeyond ?? 0);
    const content: ChannelContent =
      input.kind === 'alert'
        ? { type: 'alert', postings: postings.slice(0, shown), more, links: input.context.links }
        : { type: 'digest', period: input.period ?? '', postings: postings.slice(0, shown), more, links: input.context.links };
    // A Telegram chat is the channel's, not its route's: the body is rendered for a stand-in chat,
    // and the dispatcher addresses it to the channel's chat at send time (channel-sender.ts bodyFor).
    const chatId = route.kind === 'telegram' ? UNADDRESSED_CHAT : null;
    const request = renderOrNull(route.kind, content, { chatId, createdAt: input.context.now });
    // A message no platform limit can hold (only a Scout link of thousands of characters makes one)
    // is left out rather than fail the claim of every subscriber with it.
    if (!request) return [];
    const key = messageKey(input.setKey, route.id);
    return [
      {
        key,
        row: newMessageRow({
          uid: input.context.uid,
          channelId: route.id,
          channel: route.kind,
          kind: input.kind,
          deliveryIds: input.deliveryIds,
          body: request.body,
          runId: input.context.runId,
          now: input.context.now,
          expireAt: input.context.expireAt,
        }),
      },
    ];
  });
}

function renderOrNull(...args: Parameters<typeof renderChannelMessage>) {
  try {
    return renderChannelMessage(...args);
  } catch {
    return null;
  }
}

/** A posting as a channel shows it: its card title, employer and place, pay, and the verdict. */
export function channelPosting(item: MessageItem): ChannelPosting {
  const { posting } = item;
  return {
    id: posting.id,
    title: cardTitle(posting),
    url: posting.url ?? '',
    company: posting.company ?? null,
    place: employerLine({ company: null, location: posting.location, remote: posting.remote }),
    pay: formatBudget(posting.budget),
    reasons: item.reasons,
    fit: item.fit ?? null,
    score: item.score,
    source: posting.sightings?.[0]?.label ?? hostName(posting.url) ?? posting.source,
  };
}
