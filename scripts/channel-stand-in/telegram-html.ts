/**
 * Telegram's HTML parse mode, checked as strictly as the Bot API checks it: only its tags
 * (core.telegram.org/bots/api#html-style), each closed in order, and every other `<` escaped. A
 * message that breaks this is refused with 400 "Bad Request: can't parse entities: …", so a
 * sender's escaping of hostile posting text is tested against the same refusal Telegram gives.
 */
const ALLOWED_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'tg-emoji',
  'code',
  'pre',
  'blockquote',
]);

const TAG = /<(\/?)([A-Za-z][A-Za-z0-9-]*)?([^<>]*)>/y;

const byteOffset = (html: string, index: number) => Buffer.byteLength(html.slice(0, index));

/** Null when Telegram would parse `html`; otherwise the description of its 400. */
export function htmlParseError(html: string): string | null {
  const open: string[] = [];
  for (let i = 0; i < html.length; i++) {
    if (html[i] !== '<') continue;
    TAG.lastIndex = i;
    const match = TAG.exec(html);
    const at = byteOffset(html, i);
    if (!match || match[2] === undefined) return `Bad Request: can't parse entities: Unsupported start tag "" at byte offset ${at}`;
    const [whole, closing, rawName] = match;
    const name = rawName.toLowerCase();
    if (!closing) {
      if (!ALLOWED_TAGS.has(name)) return `Bad Request: can't parse entities: Unsupported start tag "${name}" at byte offset ${at}`;
      open.push(name);
    } else {
      const expected = open.pop();
      if (expected !== name) {
        return expected === undefined
          ? `Bad Request: can't parse entities: Unexpected end tag at byte offset ${at}`
          : `Bad Request: can't parse entities: Unmatched end tag at byte offset ${at}, expected "</${expected}>", found "</${name}>"`;
      }
    }
    i += whole.length - 1;
  }
  const unclosed = open.pop();
  return unclosed === undefined ? null : `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${unclosed}"`;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/** The text Telegram shows (and returns in `result.text`): tags gone, entities decoded. */
export function htmlToText(html: string): string {
  return html.replace(/<[^<>]*>/g, '').replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (!name.startsWith('#')) return ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
