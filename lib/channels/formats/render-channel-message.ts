// PLACEHOLDER until the formats land: replaced wholesale at merge.
import type { ChannelKind } from '../channel';
import type { ChannelContent, ChannelPosting, ChannelRequest } from '../channel-content';

export function renderChannelMessage(
  kind: ChannelKind,
  content: ChannelContent,
  target: { chatId: string | null; createdAt: Date },
): ChannelRequest {
  return { body: JSON.stringify({ kind, content, chat_id: target.chatId, timestamp: target.createdAt.toISOString() }) };
}

export function fitForChannel(_kind: ChannelKind, postings: ChannelPosting[]): number {
  return Math.min(postings.length, 10);
}
