import type { ChannelContent, ChannelLinks, ChannelPosting } from '../channel-content';
import {
  ARCHIVE_LABEL,
  facts,
  fitText,
  headline,
  moreText,
  PREFERENCES_LABEL,
  rating,
  reasonsLine,
  safeLink,
  SHOWN,
  sourceOf,
  titleOf,
  YOUR_ARCHIVE,
} from './channel-text';

/**
 * A Bot API `sendMessage` body (docs/channels.md, "Telegram") in HTML parse mode, link previews
 * off. https://core.telegram.org/bots/api#sendmessage: `text` is "1-4096 characters after
 * entities parsing", that is the text a reader sees, tags gone and entities decoded, counted in
 * UTF-16 units as Telegram counts entity offsets. Scout uses only `<b>`, `<i>` and
 * `<a href>` of the tags #html-style lists, never nested but for a link in bold.
 *
 * Escaping, per #html-style: "All <, > and & symbols that are not a part of a tag or an HTML
 * entity must be replaced with the corresponding HTML entities"; in an `href`, `"` is `&quot;`
 * too. Only those four named entities are supported, so nothing else is encoded.
 */
export const TELEGRAM_LIMITS = { text: 4096 } as const;

export type TelegramMessage = {
  chat_id: string;
  text: string;
  parse_mode: 'HTML';
  link_preview_options: { is_disabled: true };
};

/** One grapheme of a feed's text, literal in Telegram's HTML. */
export function telegramEscape(grapheme: string): string {
  return grapheme.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** A safe http(s) URL as an href attribute's value (`&` and `"` encoded), or null. */
export function telegramHref(raw: string | null | undefined): string | null {
  const safe = safeLink(raw);
  return safe ? safe.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : null;
}

/** `<a href="…">label</a>`, or the label alone. The label is already escaped. */
const anchor = (href: string | null, label: string) => (href ? `<a href="${href}">${label}</a>` : label);

/** One posting: the linked title in bold, who and where, the rating and why, the source in italics. */
export function postingLines(posting: ChannelPosting): string {
  const title = fitText(titleOf(posting), SHOWN.title, telegramEscape);
  const lines = [`<b>${anchor(telegramHref(posting.url), title)}</b>`];
  const about = facts(posting).map((f) => fitText(f.text, f.max, telegramEscape));
  if (about.length > 0) lines.push(about.join(' · '));
  const { label, text } = rating(posting);
  const why = reasonsLine(posting.reasons, telegramEscape);
  lines.push(`${label} ${text}${why ? ` · Why: ${why}` : ''}`);
  const source = sourceOf(posting);
  if (source) lines.push(`<i>via ${fitText(source, SHOWN.source, telegramEscape)}</i>`);
  return lines.join('\n');
}

function linksLine(links: ChannelLinks): string {
  return `${anchor(telegramHref(links.preferences), PREFERENCES_LABEL)} · ${anchor(telegramHref(links.archive), YOUR_ARCHIVE)}`;
}

/** The HTML text of an alert, a digest or the confirmation that a chat is connected. */
export function telegramText(content: ChannelContent): string {
  if (content.type === 'test') {
    const page = anchor(telegramHref(content.links.preferences), 'your preferences page');
    return [
      '<b>Connected to Scout</b>',
      `This chat now gets the matches you chose. Pause or remove it on ${page}, or send /stop here.`,
    ].join('\n\n');
  }
  const parts = [`<b>${headline(content)}</b>`, ...content.postings.map(postingLines)];
  if (content.more > 0) parts.push(`${moreText(content.more)} — ${anchor(telegramHref(content.links.archive), ARCHIVE_LABEL)}`);
  parts.push(linksLine(content.links));
  return parts.join('\n\n');
}

/** The sendMessage body for a bound chat. */
export function renderTelegram(content: ChannelContent, chatId: string): TelegramMessage {
  return { chat_id: chatId, text: telegramText(content), parse_mode: 'HTML', link_preview_options: { is_disabled: true } };
}

const ENTITY = /&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);/gi;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/** The text a reader sees of Telegram HTML: tags dropped, entities decoded (what the 4096 counts). */
export function visibleText(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(ENTITY, (_, name: string) => {
    const lower = name.toLowerCase();
    if (NAMED[lower]) return NAMED[lower];
    return String.fromCodePoint(lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10));
  });
}

/** What in the message is over Telegram's limit, in words; empty when it fits. */
export function telegramProblems(message: TelegramMessage): string[] {
  const length = visibleText(message.text).length;
  return length > TELEGRAM_LIMITS.text || length === 0 ? [`text of ${length} after entities parsing`] : [];
}
