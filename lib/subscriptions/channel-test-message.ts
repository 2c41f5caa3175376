import type { ChannelContent, ChannelLinks } from '../channels/channel-content';
import type { ChannelSendOutcome } from '../channels/channel-outcome';
import type { ChannelKind } from '../channels/channel';
import { archiveUrl, preferencesUrl } from '../subscribers/link-token';
import type { Subscriber } from '../subscribers/subscriber';

/** What a channel is sent to: the destination as stored, and the webhook's signing secret (null for the others). */
export type ChannelTestTarget = { kind: ChannelKind; destination: string; secret: string | null };

export type ChannelTestContent = Extract<ChannelContent, { type: 'test' }>;

/**
 * Sends one verification message to a channel, now, outside the ledger: the code a Slack or Discord
 * channel is verified with, a webhook's `scout.test` event, the "Connected" of Telegram's bot. The
 * subscriber is on the page waiting for it, and a test message is never an alert, so it has no
 * message row: a lost one is sent again with "Send a new code". The platform's answer comes back
 * classified (lib/channels/channel-outcome.ts); `gone` and `rejected` mean the destination is wrong.
 * Production passes the channels' transport with the platforms' formats (AppDeps.sendChannelTest).
 */
export type SendChannelTest = (target: ChannelTestTarget, content: ChannelTestContent) => Promise<ChannelSendOutcome>;

/** The links every message carries: where the subscriber pauses or removes the channel, and their archive. */
export function channelLinksOf(
  subscriber: Pick<Subscriber, 'id' | 'linkVersion'>,
  input: { appUrl: string; secret: string; now: Date },
): ChannelLinks {
  const link = { appUrl: input.appUrl, uid: subscriber.id, linkVersion: subscriber.linkVersion, secret: input.secret, issuedAt: input.now };
  return { preferences: preferencesUrl(link), archive: archiveUrl(link) };
}

/** The outcome as a sentence the page can show: what the platform said, in plain words. */
export function describeTestOutcome(outcome: ChannelSendOutcome, platform: string): string {
  switch (outcome.status) {
    case 'sent':
      return `${platform} took the message.`;
    case 'gone':
      return `${platform} says this address does not exist (any more): check that you copied the whole URL, and that the webhook was not deleted (${outcome.error}).`;
    case 'rejected':
      return `${platform} refused the message (${outcome.error}): check the URL.`;
    case 'refused':
      return `${platform} asked Scout to slow down or could not be reached (${outcome.error}): try again in a minute.`;
    case 'unknown':
      return `${platform} did not say whether it got the message (${outcome.error}).`;
  }
}
