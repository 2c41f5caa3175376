/**
 * Each platform's documented limits, written down here from the platforms' own pages rather than
 * imported from lib/ (a format that misread a limit must fail these tests, not agree with them),
 * and checkers that measure a rendered body the way the platform measures it: "characters" are
 * UTF-16 code units, the larger count of the two a platform might mean.
 *
 * Slack  https://docs.slack.dev/reference/block-kit/blocks ("up to 50 blocks in each message"),
 *        .../blocks/header-block (plain_text, "Maximum length … 150 characters"),
 *        .../blocks/section-block and .../composition-objects/text-object (3000),
 *        .../blocks/context-block ("Maximum number of items is 10"); the blocks' text in all is
 *        refused at about 12,000 characters (`msg_blocks_too_long`, slackapi/bolt-js issues 2509
 *        and 2867: 11,341 measured characters were refused), so 11,000 is the bound checked here.
 * Discord discord/discord-api-docs developers/resources/webhook.mdx ("Execute Webhook": content
 *        up to 2000 characters, up to 10 embeds) and developers/resources/message.mdx ("Embed
 *        Limits": title 256, description 4096, 25 fields, field name 256 and value 1024, footer
 *        2048, author name 256, 6000 across all embeds).
 * Telegram https://core.telegram.org/bots/api#sendmessage ("1-4096 characters after entities
 *        parsing") and #html-style (the tags and the four named entities it supports).
 */
export const PLATFORM_LIMITS = {
  slack: { blocks: 50, header: 150, text: 3000, contextElements: 10, blocksText: 11_000 },
  discord: {
    content: 2000,
    embeds: 10,
    title: 256,
    description: 4096,
    fields: 25,
    fieldName: 256,
    fieldValue: 1024,
    footer: 2048,
    total: 6000,
  },
  telegram: { text: 4096 },
} as const;

type Json = Record<string, unknown>;

/** Every limit a Slack body breaks, in words. */
export function slackBreaks(body: Json): string[] {
  const L = PLATFORM_LIMITS.slack;
  const out: string[] = [];
  const blocks = body.blocks as Json[];
  if (typeof body.text !== 'string' || body.text.length === 0) out.push('no fallback text');
  if (blocks.length > L.blocks) out.push(`${blocks.length} blocks`);
  let total = 0;
  for (const block of blocks) {
    const texts: Json[] = block.type === 'context' ? (block.elements as Json[]) : block.text ? [block.text as Json] : [];
    if (block.type === 'context' && texts.length > L.contextElements) out.push('context elements');
    if (block.type === 'header' && (block.text as Json).type !== 'plain_text') out.push('header not plain_text');
    for (const t of texts) {
      const text = t.text as string;
      const max = block.type === 'header' ? L.header : L.text;
      if (text.length > max) out.push(`${String(block.type)} text ${text.length} > ${max}`);
      if (text.length === 0) out.push(`empty ${String(block.type)} text`);
      total += text.length;
    }
  }
  if (total > L.blocksText) out.push(`blocks' text ${total}`);
  return out;
}

/** Every limit a Discord body breaks, in words. */
export function discordBreaks(body: Json): string[] {
  const L = PLATFORM_LIMITS.discord;
  const out: string[] = [];
  const content = (body.content as string | undefined) ?? '';
  const embeds = (body.embeds as Json[]) ?? [];
  if (content.length > L.content) out.push(`content ${content.length}`);
  if (embeds.length > L.embeds) out.push(`${embeds.length} embeds`);
  if (!content.trim() && embeds.length === 0) out.push('nothing to send');
  let total = 0;
  for (const e of embeds) {
    const title = (e.title as string | undefined) ?? '';
    const description = (e.description as string | undefined) ?? '';
    const footer = ((e.footer as Json | undefined)?.text as string | undefined) ?? '';
    const fields = (e.fields as Json[] | undefined) ?? [];
    if (title.length > L.title) out.push(`title ${title.length}`);
    if (description.length > L.description) out.push(`description ${description.length}`);
    if (footer.length > L.footer) out.push(`footer ${footer.length}`);
    if (fields.length > L.fields) out.push(`${fields.length} fields`);
    total += title.length + description.length + footer.length;
    for (const f of fields) {
      const name = f.name as string;
      const value = f.value as string;
      if (name.length > L.fieldName || name.trim() === '') out.push(`field name ${name.length}`);
      if (value.length > L.fieldValue || value.trim() === '') out.push(`field value ${value.length}`);
      total += name.length + value.length;
    }
  }
  if (total > L.total) out.push(`embeds' text ${total}`);
  return out;
}

const TELEGRAM_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-spoiler',
  'span',
]);
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/**
 * A small scanner of Telegram's HTML: it reads tags and entities as the Bot API does and returns
 * the visible text, or throws on what Telegram would refuse (an unknown tag, an unclosed or
 * crossed tag, an attribute other than `href`, a bare `&`, `<` or `>`, an unsupported entity).
 */
export function scanTelegramHtml(html: string): { visible: string; tags: string[]; hrefs: string[] } {
  const open: string[] = [];
  const tags: string[] = [];
  const hrefs: string[] = [];
  let visible = '';
  const token = /<(\/?)([a-z-]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*>|&([a-z]+|#\d+|#x[0-9a-f]+);|([<>&])|([^<>&]+)/gi;
  let m: RegExpExecArray | null;
  let at = 0;
  while ((m = token.exec(html))) {
    if (m.index !== at) throw new Error(`unreadable HTML at ${at}: ${html.slice(at, at + 30)}`);
    at = token.lastIndex;
    const [, closing, name, attributes, entity, bare, text] = m;
    if (text !== undefined) visible += text;
    else if (bare !== undefined) throw new Error(`bare ${bare} at ${m.index}`);
    else if (entity !== undefined) visible += decodeEntity(entity);
    else readTag(name.toLowerCase(), closing === '/', attributes ?? '', { open, tags, hrefs });
  }
  if (at !== html.length) throw new Error(`unreadable HTML at ${at}`);
  if (open.length > 0) throw new Error(`unclosed <${open.join('>, <')}>`);
  return { visible, tags, hrefs };
}

function decodeEntity(entity: string): string {
  const lower = entity.toLowerCase();
  if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
  if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
  if (!(lower in NAMED)) throw new Error(`unsupported entity &${entity};`);
  return NAMED[lower];
}

function readTag(name: string, closing: boolean, attributes: string, state: { open: string[]; tags: string[]; hrefs: string[] }) {
  if (!TELEGRAM_TAGS.has(name)) throw new Error(`tag <${name}> is not one Telegram supports`);
  if (closing) {
    if (state.open.pop() !== name) throw new Error(`</${name}> closes another tag`);
    return;
  }
  const attrs = [...attributes.matchAll(/([a-z-]+)="([^"]*)"/gi)];
  for (const [, attr, value] of attrs) {
    if (name !== 'a' || attr !== 'href') throw new Error(`attribute ${attr} on <${name}>`);
    state.hrefs.push(value.replace(/&(amp|quot|lt|gt);/g, (_, e: string) => NAMED[e]));
  }
  state.open.push(name);
  state.tags.push(name);
}

/** Every limit a Telegram body breaks, in words (its HTML must scan, too). */
export function telegramBreaks(body: Json): string[] {
  const { visible } = scanTelegramHtml(body.text as string);
  const out: string[] = [];
  if (visible.length > PLATFORM_LIMITS.telegram.text) out.push(`text ${visible.length} after entities parsing`);
  if (visible.trim().length === 0) out.push('empty text');
  if (body.parse_mode !== 'HTML') out.push('parse_mode');
  return out;
}

/** The limits a body breaks on its platform (the webhook's JSON has none but being JSON). */
export function limitBreaks(kind: 'slack' | 'discord' | 'telegram' | 'webhook', body: string): string[] {
  const json = JSON.parse(body) as Json;
  if (kind === 'slack') return slackBreaks(json);
  if (kind === 'discord') return discordBreaks(json);
  if (kind === 'telegram') return telegramBreaks(json);
  return [];
}
