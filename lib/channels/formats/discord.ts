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
 * A Discord webhook's execute body (docs/channels.md, "Discord"): the headline and Scout's links
 * in `content`, one embed per posting, posted as "Scout", and `allowed_mentions: { parse: [] }` so
 * no @everyone, @here, role or user is ever notified, whatever a feed wrote.
 *
 * Discord's documented limits (discord/discord-api-docs, developers/resources/webhook.mdx
 * "Execute Webhook" and developers/resources/message.mdx "Embed Limits"): content 2000
 * characters; up to 10 embeds; an embed's title 256, description 4096, up to 25 fields, a field's
 * name 256 and value 1024, footer 2048, author 256; and all embeds' title, description, field
 * names and values, footers and authors together 6000.
 *
 * Escaping: Discord renders a subset of markdown in content, titles, descriptions and fields, and
 * a backslash makes the next character literal. A feed's text has `\ * _ ~ ` | > # - [ ] ( ) <`
 * escaped, so `**bold**`, `||spoiler||`, a quote, a heading, a list, a masked link
 * `[click](https://evil.example)` and `<@123>`, `<#123>`, `<@&123>`, `<t:…>` stay text; an `@` is
 * followed by a zero-width space, so `@everyone` and `@here` are not even shown as mentions. A
 * bare https:// URL in a feed's text may still be linked by Discord: it shows the address it
 * opens, unlike a masked link.
 */
export const DISCORD_LIMITS = {
  content: 2000,
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
} as const;

export type DiscordField = { name: string; value: string; inline: boolean };
export type DiscordEmbed = { title: string; url?: string; description?: string; fields: DiscordField[]; color: number };
export type DiscordMessage = {
  username: 'Scout';
  content?: string;
  embeds: DiscordEmbed[];
  allowed_mentions: { parse: [] };
};

/** Scout's blue on each posting's embed. */
const COLOR = 0x2563eb;

/** One grapheme of a feed's text, literal in Discord's markdown and never a mention. */
export function discordEscape(grapheme: string): string {
  return grapheme.replace(/[\\*_~`|>#\-[\]()<]/g, '\\$&').replace(/@/g, '@\u200b');
}

/**
 * A URL as the target of a masked link `[label](<url>)`: the characters that could end the link
 * or the angle brackets early are percent-encoded. null when not a safe http(s) URL.
 */
export function discordUrl(raw: string | null | undefined): string | null {
  const safe = safeLink(raw);
  return safe ? safe.replace(/[<>()[\]\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`) : null;
}

/** `[label](<url>)`: the angle brackets keep Discord from previewing Scout's own pages. */
const masked = (url: string | null, label: string) => (url ? `[${label}](<${url}>)` : label);

/** One posting as an embed: the title linking to it, why it matched and its source, then its facts as fields. */
export function postingEmbed(posting: ChannelPosting): DiscordEmbed {
  const url = discordUrl(posting.url);
  const why = reasonsLine(posting.reasons, discordEscape);
  const source = sourceOf(posting);
  const description = [why ? `Why: ${why}` : '', source ? `*via ${fitText(source, SHOWN.source, discordEscape)}*` : '']
    .filter(Boolean)
    .join('\n');
  const { label, text } = rating(posting);
  const fields = facts(posting).map((f) => ({ name: f.label, value: fitText(f.text, f.max, discordEscape), inline: true }));
  fields.push({ name: label, value: text, inline: true });
  return {
    title: fitText(titleOf(posting), SHOWN.title, discordEscape),
    ...(url ? { url } : {}),
    ...(description ? { description } : {}),
    fields,
    color: COLOR,
  };
}

function linksLine(links: ChannelLinks, withArchive: boolean): string {
  const parts = [masked(discordUrl(links.preferences), PREFERENCES_LABEL)];
  if (withArchive) parts.push(masked(discordUrl(links.archive), YOUR_ARCHIVE));
  return parts.join(' · ');
}

/** The Discord message for an alert, a digest or a verification. */
export function renderDiscord(content: ChannelContent): DiscordMessage {
  const lines = [`**${headline(content)}**`];
  let embeds: DiscordEmbed[] = [];
  if (content.type === 'test') {
    const code = codeOf(content.code);
    lines.push(...(code ? [VERIFY_INTRO, `\`${code}\``, VERIFY_HINT] : ['Connected to Scout.']), linksLine(content.links, false));
  } else {
    embeds = content.postings.map(postingEmbed);
    if (content.more > 0) lines.push(`${moreText(content.more)} — ${masked(discordUrl(content.links.archive), ARCHIVE_LABEL)}`);
    // The archive linked once: Scout's links run to about 700 characters (the token of a 254-character
    // address), and three of them would pass the 2,000 characters `content` may hold.
    lines.push(linksLine(content.links, content.more === 0));
  }
  return { username: 'Scout', content: lines.join('\n'), embeds, allowed_mentions: { parse: [] } };
}

const embedText = (e: DiscordEmbed) =>
  e.title.length + (e.description?.length ?? 0) + e.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);

/** What in the message is over one of Discord's limits, in words; empty when it fits. */
export function discordProblems(message: DiscordMessage): string[] {
  const problems: string[] = [];
  const L = DISCORD_LIMITS;
  if ((message.content?.length ?? 0) > L.content) problems.push(`content of ${message.content?.length}`);
  if (message.embeds.length > L.embeds) problems.push(`${message.embeds.length} embeds`);
  for (const [i, e] of message.embeds.entries()) {
    if (e.title.length > L.title || e.title.trim() === '') problems.push(`embed ${i} title`);
    if ((e.description?.length ?? 0) > L.description) problems.push(`embed ${i} description`);
    if (e.fields.length > L.fields) problems.push(`embed ${i} has ${e.fields.length} fields`);
    for (const f of e.fields) {
      if (f.name.length > L.fieldName || f.value.length > L.fieldValue || f.value.trim() === '')
        problems.push(`embed ${i} field ${f.name}`);
    }
  }
  const total = message.embeds.reduce((n, e) => n + embedText(e), 0);
  if (total > L.total) problems.push(`embeds' text of ${total}`);
  return problems;
}
