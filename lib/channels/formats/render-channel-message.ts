import type { ChannelKind } from '../channel';
import type { ChannelContent, ChannelPosting, ChannelRequest } from '../channel-content';
import { discordProblems, DISCORD_LIMITS, renderDiscord } from './discord';
import { renderSlack, SLACK_LIMITS, slackProblems } from './slack';
import { renderTelegram, telegramProblems } from './telegram';
import { renderWebhook, WEBHOOK_MAX_POSTINGS, webhookProblems } from './webhook';

/** Who the message is for: Telegram's bound chat (null for the other kinds) and when the message was created. */
export type ChannelTarget = { chatId: string | null; createdAt: Date };

type Format = {
  render(content: ChannelContent, target: ChannelTarget): unknown;
  problems(payload: unknown): string[];
  /** Postings a message can hold before its text is even measured. */
  most: number;
};

function telegramChat(target: ChannelTarget): string {
  if (!target.chatId) throw new Error('A Telegram message needs the chat it is for: the channel has no bound chat.');
  return target.chatId;
}

// Slack: besides one section per posting, a header, the "and N more" section, a divider and the links.
const FORMATS: Record<ChannelKind, Format> = {
  slack: { render: (c) => renderSlack(c), problems: (p) => slackProblems(p as never), most: SLACK_LIMITS.blocks - 4 },
  discord: { render: (c) => renderDiscord(c), problems: (p) => discordProblems(p as never), most: DISCORD_LIMITS.embeds },
  telegram: { render: (c, t) => renderTelegram(c, telegramChat(t)), problems: (p) => telegramProblems(p as never), most: 50 },
  webhook: { render: (c, t) => renderWebhook(c, t.createdAt), problems: (p) => webhookProblems(p as never), most: WEBHOOK_MAX_POSTINGS },
};

/**
 * The content with as many of its postings as one message of this kind holds within every limit
 * the platform documents, best first; the rest are added to `more`, which the message states
 * ("and N more — see your archive"). A verification has no postings and is returned as it is.
 */
function fitted(kind: ChannelKind, content: ChannelContent, target: ChannelTarget): { shown: number; payload: unknown } {
  const format = FORMATS[kind];
  if (content.type === 'test') return { shown: 0, payload: format.render(content, target) };
  const all = content.postings;
  /** The payload showing the first `shown` postings, or null when it breaks a limit. */
  const within = (shown: number) => {
    const payload = format.render({ ...content, postings: all.slice(0, shown), more: content.more + all.length - shown }, target);
    return format.problems(payload).length === 0 ? payload : null;
  };
  let high = Math.min(all.length, format.most);
  const whole = within(high);
  if (whole) return { shown: high, payload: whole };
  // Fewer postings make a smaller message, so the most that fit is found by halving.
  let low = -1;
  let best: unknown = null;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const payload = within(middle);
    if (payload) [low, best] = [middle, payload];
    else high = middle;
  }
  if (best) return { shown: low, payload: best };
  // Only Scout's own text is left by then (the headline and its links): a bug, not a feed's doing.
  throw new Error(`A ${kind} message is over the platform's limits even without postings.`);
}

/**
 * The exact request body of one channel message: the JSON the transport sends, frozen in the
 * message's row so every retry sends the same bytes. Pure: the same content, kind and target
 * always give the same body.
 */
export function renderChannelMessage(kind: ChannelKind, content: ChannelContent, target: ChannelTarget): ChannelRequest {
  return { body: JSON.stringify(fitted(kind, content, target).payload) };
}

// Links as long as Scout's signed links get, and a count of five digits: a fit computed with them
// holds for the real message.
const ROOMY_LINKS = {
  preferences: `https://scout.example.com/preferences?token=${'x'.repeat(400)}`,
  archive: `https://scout.example.com/archive?token=${'x'.repeat(400)}`,
};

/**
 * How many of these postings (best first) one message of this kind holds: the caller sends those
 * and counts the rest in `more`. renderChannelMessage fits again whatever it is given, so this is
 * the plan, and the message never breaks a limit if the plan is off.
 */
export function fitForChannel(kind: ChannelKind, postings: readonly ChannelPosting[]): number {
  const more = 99_999 - postings.length;
  const content: ChannelContent = { type: 'digest', period: '2026-W52', postings: [...postings], more, links: ROOMY_LINKS };
  return fitted(kind, content, { chatId: '-1001234567890', createdAt: new Date(0) }).shown;
}
