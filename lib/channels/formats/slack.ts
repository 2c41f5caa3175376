import type { ChannelContent, ChannelLinks, ChannelPosting } from '../channel-content';
import {
  ARCHIVE_LABEL,
  codeOf,
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
  VERIFY_HINT,
  VERIFY_INTRO,
  YOUR_ARCHIVE,
} from './channel-text';

/**
 * A Slack incoming webhook's body (docs/channels.md, "Slack"): Block Kit with a plain `text` for
 * notifications, link previews off (a posting's page must not unfurl into the channel).
 *
 * Slack's documented limits (https://docs.slack.dev/reference/block-kit/blocks and each block's
 * page): 50 blocks a message; a section's text and any text object 3000 characters; a header's
 * plain_text 150; a context block 10 elements. Slack also refuses a message whose blocks hold
 * about 12,000 characters of text in all (`msg_blocks_too_long`; undocumented, measured in
 * slackapi/bolt-js issues 2509 and 2867, where 11,341 was already refused), so Scout keeps the
 * blocks' text under `TOTAL_TEXT`.
 *
 * Escaping, per https://docs.slack.dev/messaging/formatting-message-text#escaping: `&`, `<` and
 * `>` become `&amp;`, `&lt;`, `&gt;`, which is what makes `<!channel>`, `<!here>`, `<@U123>`,
 * `<#C123>` and `<url|label>` typed by a feed plain text. Slack has no escape for `*`, `_`, `~` and
 * `` ` ``, so in a feed's text they become look-alikes (∗ ˍ ∼ ˋ, as jsx-slack's <Escape> does):
 * `*free*` must not turn bold or close Scout's own bold around a title. Every mrkdwn text object
 * is `verbatim`, so Slack links no bare channel name or URL a feed wrote.
 */
export const SLACK_LIMITS = { blocks: 50, sectionText: 3000, headerText: 150, contextElements: 10, fallbackText: 3000 } as const;
/** Scout's own cap on all the blocks' text, below the ~12,000 Slack refuses. */
export const TOTAL_TEXT = 10_000;

export type SlackText = { type: 'mrkdwn'; text: string; verbatim: true } | { type: 'plain_text'; text: string; emoji: true };
export type SlackBlock =
  | { type: 'header'; text: { type: 'plain_text'; text: string; emoji: true } }
  | { type: 'section'; text: SlackText }
  | { type: 'context'; elements: SlackText[] }
  | { type: 'divider' };
export type SlackMessage = { text: string; blocks: SlackBlock[]; unfurl_links: false; unfurl_media: false };

const LOOK_ALIKE: Record<string, string> = { '*': '\u2217', _: '\u02cd', '~': '\u223c', '`': '\u02cb' };

/** One grapheme of a feed's text, safe in mrkdwn. */
export function slackEscape(grapheme: string): string {
  return grapheme.replace(/[&<>*_~`]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : LOOK_ALIKE[c]));
}

/**
 * A URL inside `<url|label>`: `&` escaped as Slack asks, and `<`, `>` and `|` percent-encoded, so
 * a URL holding `|` or `>` can neither end the link early nor pick its own label. null when the
 * URL is not a safe http(s) one.
 */
export function slackUrl(raw: string | null | undefined): string | null {
  const safe = safeLink(raw);
  if (!safe) return null;
  const url = safe.replace(/[<>|]/g, (c) => encodeURIComponent(c)).replace(/&/g, '&amp;');
  // A link escaped past this would leave a posting at every other cap over a section's 3000.
  return url.length > SLACK_MAX_LINK ? null : url;
}

/** The longest escaped link a section carries: with every other field at its cap, a section stays under 3000. */
const SLACK_MAX_LINK = 1900;

/**
 * `<url|label>`, or the label alone when there is no safe URL. The label is already escaped; a `|`
 * in it becomes a look-alike (∣), so the label has one reading however Slack splits at pipes.
 */
const link = (url: string | null, label: string) => (url ? `<${url}|${label.replace(/\|/g, '\u2223')}>` : label);

const mrkdwn = (text: string): SlackText => ({ type: 'mrkdwn', text, verbatim: true });

/** One posting as a section: the linked title in bold, who and where, the rating and why, the source. */
export function postingSection(posting: ChannelPosting): SlackBlock {
  const title = fitText(titleOf(posting), SHOWN.title, slackEscape);
  const lines = [`*${link(slackUrl(posting.url), title)}*`];
  const about = facts(posting).map((f) => fitText(f.text, f.max, slackEscape));
  if (about.length > 0) lines.push(about.join(' · '));
  const { label, text } = rating(posting);
  const why = reasonsLine(posting.reasons, slackEscape);
  lines.push(`${label} ${text}${why ? ` · Why: ${why}` : ''}`);
  const source = sourceOf(posting);
  if (source) lines.push(`_via ${fitText(source, SHOWN.source, slackEscape)}_`);
  return { type: 'section', text: mrkdwn(lines.join('\n')) };
}

function footer(links: ChannelLinks, withArchive: boolean): SlackBlock[] {
  const parts = [link(slackUrl(links.preferences), PREFERENCES_LABEL)];
  if (withArchive) parts.push(link(slackUrl(links.archive), YOUR_ARCHIVE));
  return [{ type: 'divider' }, { type: 'context', elements: [mrkdwn(parts.join(' · '))] }];
}

/** The notification text: the headline and the first titles, plain (a phone shows it as it is). */
function fallback(content: ChannelContent): string {
  const head = headline(content);
  if (content.type === 'test') return content.code ? `${head}: ${codeOf(content.code)}` : head;
  const titles = content.postings.map(titleOf).join(' · ');
  return fitText(titles ? `${head} — ${titles}` : head, 300, slackEscape);
}

/** The Slack message for an alert, a digest or a verification. */
export function renderSlack(content: ChannelContent): SlackMessage {
  const blocks: SlackBlock[] = [{ type: 'header', text: { type: 'plain_text', text: headline(content), emoji: true } }];
  if (content.type === 'test') {
    const code = codeOf(content.code);
    const lines = code ? [VERIFY_INTRO, `\`${code}\``, VERIFY_HINT] : ['Connected to Scout.'];
    blocks.push({ type: 'section', text: mrkdwn(lines.join('\n')) }, ...footer(content.links, false));
  } else {
    blocks.push(...content.postings.map(postingSection));
    if (content.more > 0) {
      const archive = link(slackUrl(content.links.archive), ARCHIVE_LABEL);
      blocks.push({ type: 'section', text: mrkdwn(`${moreText(content.more)} — ${archive}`) });
    }
    blocks.push(...footer(content.links, true));
  }
  return { text: fallback(content), blocks, unfurl_links: false, unfurl_media: false };
}

const textsOf = (block: SlackBlock): string[] =>
  block.type === 'divider' ? [] : block.type === 'context' ? block.elements.map((e) => e.text) : [block.text.text];

/** What in the message is over one of Slack's limits (or Scout's total), in words; empty when it fits. */
export function slackProblems(message: SlackMessage): string[] {
  const problems: string[] = [];
  if (message.blocks.length > SLACK_LIMITS.blocks) problems.push(`${message.blocks.length} blocks`);
  if (message.text.length > SLACK_LIMITS.fallbackText) problems.push('fallback text too long');
  let total = 0;
  for (const block of message.blocks) {
    const max = block.type === 'header' ? SLACK_LIMITS.headerText : SLACK_LIMITS.sectionText;
    if (block.type === 'context' && block.elements.length > SLACK_LIMITS.contextElements) problems.push('context elements');
    for (const text of textsOf(block)) {
      if (text.length > max || text.length === 0) problems.push(`${block.type} text of ${text.length}`);
      total += text.length;
    }
  }
  if (total > TOTAL_TEXT) problems.push(`blocks' text of ${total}`);
  return problems;
}
