import { render } from '@react-email/render';
import { postingsPreheader } from './email-subject';
import { DailyDigestEmail, type DailyDigestProps } from './templates/daily-digest';
import { reasonsLine, type EmailItem } from './templates/email-item';
import { InstantAlertEmail, type InstantAlertProps } from './templates/instant-alert';
import { PostingCard } from './templates/posting-card';

/**
 * The React Email components stay the design; this renders each of them once per *shape* into a
 * template with slots, then fills the slots with escaped values per email — byte for byte what
 * `render()` would have produced (test/mail/prerendered-emails.test.ts compares the two on generated
 * and hostile inputs), at a small fraction of the cost (npm run bench:render).
 *
 * How: every string a component shows is swapped for a sentinel (private-use characters React
 * leaves alone), the component is rendered once, and the HTML is cut at the sentinels. A value is
 * then filled the way React writes it: as UTF-8 does (a lone surrogate becomes U+FFFD), escaped
 * like React's escapeTextForBrowser, and, in an href, blocked like React blocks `javascript:` URLs.
 *
 * What a sentinel cannot stand for is part of the shape, and each shape is its own template:
 * which optional values are present, which are empty (React writes no text node, and no `href`,
 * for ''), how many cards and sources, and the numbers the components compare (`moreCount`). The
 * preview text (the preheader) is cut to 150 characters and padded by react-email's Preview: that slot is filled
 * by the same rule. Cards are templates of their own, so a digest's shape does not multiply by its
 * cards'.
 */

const SLOT = (i: number) => `\uE000${i}\uE001`;
const CARD_MARK = (i: number) => `\uE002${i}\uE003`;
const PREVIEW_MARK = '\uE004';
/** Stands for a count in a compiled frame; no email shows this number (and the equivalence test would catch one that did). */
const SLOT_NUMBER = 918_273_645;

// react-dom/server's rules, as its source writes them (react-dom-server.node.production.js).
const JAVASCRIPT_URL =
  /^[\u0000-\u001F ]*j[\r\n\t]*a[\r\n\t]*v[\r\n\t]*a[\r\n\t]*s[\r\n\t]*c[\r\n\t]*r[\r\n\t]*i[\r\n\t]*p[\r\n\t]*t[\r\n\t]*:/i;
const BLOCKED_URL = "javascript:throw new Error('React has blocked a javascript: URL as a security precaution.')";
const ESCAPES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&#x27;', '<': '&lt;', '>': '&gt;' };
const escapeHtml = (text: string) => (/["&'<>]/.test(text) ? text.replace(/["&'<>]/g, (c) => ESCAPES[c]) : text);
/** What UTF-8 does to a string: a lone surrogate (half an emoji cut by a length cap) becomes U+FFFD. */
const wellFormed = (text: string) =>
  !/[\uD800-\uDFFF]/.test(text) ? text : text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

// react-email's Preview: the first 150 UTF-16 units, then padding up to 150.
const PREVIEW_MAX_LENGTH = 150;
const PREVIEW_PADDING = '\xA0\u200C\u200B\u200D\u200E\u200F\uFEFF';

type Slot = { value: number; url: boolean } | { card: number } | { preview: true };
type Template = { parts: string[]; slots: Slot[] };

/** Values for a template's slots: the strings its sentinels stood for, the cards' HTML, the preview text. */
type Fill = { values: string[]; cards?: string[]; preview?: string };

function fill(template: Template, input: Fill): string {
  let html = template.parts[0];
  template.slots.forEach((slot, i) => {
    if ('card' in slot) html += input.cards![slot.card];
    else if ('preview' in slot) html += previewHtml(input.preview!);
    else {
      const value = wellFormed(input.values[slot.value]);
      html += escapeHtml(slot.url && JAVASCRIPT_URL.test(value) ? BLOCKED_URL : value);
    }
    html += template.parts[i + 1];
  });
  return html;
}

function previewHtml(subject: string): string {
  const text = subject.substring(0, PREVIEW_MAX_LENGTH);
  const padding = text.length < PREVIEW_MAX_LENGTH ? `<div>${PREVIEW_PADDING.repeat(PREVIEW_MAX_LENGTH - text.length)}</div>` : '';
  return escapeHtml(wellFormed(text)) + padding;
}

/** Cuts rendered HTML at its sentinels. Cards and the preview are cut first, as whole regions. */
function compile(html: string, regions: { cards: string[]; numberSlot?: number | null } = { cards: [] }): Template {
  let marked = regions.numberSlot != null ? html.replaceAll(String(SLOT_NUMBER), SLOT(regions.numberSlot)) : html;
  regions.cards.forEach((cardHtml, i) => {
    const at = marked.indexOf(cardHtml);
    if (at < 0) throw new Error(`prerendered emails: card ${i} not found where it was rendered`);
    marked = marked.slice(0, at) + CARD_MARK(i) + marked.slice(at + cardHtml.length);
  });
  marked = marked.replace(new RegExp(`${PREVIEW_MARK}[^<]*(<div>[${PREVIEW_PADDING}]*</div>)?`), PREVIEW_MARK);
  const parts: string[] = [];
  const slots: Slot[] = [];
  const token = /\uE000(\d+)\uE001|\uE002(\d+)\uE003|\uE004/g;
  let last = 0;
  for (const match of marked.matchAll(token)) {
    const before = marked.slice(last, match.index);
    parts.push(before);
    if (match[1] !== undefined) slots.push({ value: Number(match[1]), url: /href="$/.test(before) });
    else if (match[2] !== undefined) slots.push({ card: Number(match[2]) });
    else slots.push({ preview: true });
    last = match.index + match[0].length;
  }
  parts.push(marked.slice(last));
  return { parts, slots };
}

/**
 * Swaps a value for its sentinel and records its shape: absent, empty, or present. Empty and
 * absent stay as they are (React writes nothing for them); present ones become sentinels.
 */
class Sentinels {
  readonly values: string[] = [];
  readonly shape: string[] = [];
  text(value: string | null | undefined): string | null | undefined {
    if (value === null || value === undefined) return this.mark(value === null ? 'n' : 'u', value);
    if (value === '') return this.mark('e', value);
    this.values.push(value);
    this.shape.push('s');
    return SLOT(this.values.length - 1);
  }
  /**
   * A count the component compares (0, 1 or more) and shows: its class is the shape, and a count
   * of more than one becomes a number no real count is, which compile() turns into its slot.
   */
  count(value: number): number {
    if (value <= 1) return this.mark(`c${value}`, value);
    this.values.push(String(value));
    this.shape.push('c+');
    this.numberSlot = this.values.length - 1;
    return SLOT_NUMBER;
  }
  numberSlot: number | null = null;
  mark<T>(bit: string, value: T): T {
    this.shape.push(bit);
    return value;
  }
  get key() {
    return this.shape.join('');
  }
}

/** The card as a template sees it: every string a sentinel, and the reasons as the one line it shows of them. */
function cardSentinels(item: EmailItem): { props: EmailItem; s: Sentinels } {
  const s = new Sentinels();
  const reasons = reasonsLine(item.reasons);
  const props: EmailItem = {
    title: s.text(item.title)!,
    url: s.text(item.url) as string | null,
    employer: s.text(item.employer),
    budget: s.text(item.budget) as string | null,
    published: s.text(item.published) as string | null,
    excerpt: s.text(item.excerpt)!,
    reasons: [s.text(reasons)!],
    score: item.score,
    fit: item.fit === null || item.fit === undefined ? s.mark('n', item.fit) : (s.text(String(item.fit)) as unknown as number),
    fitReason: s.text(item.fitReason),
    seenOn: item.seenOn
      ? s
          .mark(`[${item.seenOn.length}`, item.seenOn)
          .map((seen) => ({ label: s.text(seen.label)!, url: s.text(seen.url) as string | null }))
      : s.mark('n', item.seenOn),
    history: s.text(item.history),
    notAFitUrl: s.text(item.notAFitUrl),
  };
  return { props, s };
}

/** A bounded memo: shapes are few in practice, but nothing unbounded lives in a warm instance. */
class TemplateCache {
  private readonly map = new Map<string, Promise<Template>>();
  /** The compiled ones, to fill without a promise per card (most of a digest's cost once warm). */
  private readonly ready = new Map<string, Template>();
  constructor(private readonly max: number) {}
  peek(key: string): Template | undefined {
    return this.ready.get(key);
  }
  get(key: string, make: () => Promise<Template>): Promise<Template> {
    const hit = this.map.get(key);
    if (hit) return hit;
    const made = make().then((template) => {
      if (this.map.has(key)) this.ready.set(key, template);
      return template;
    });
    // A compile that failed is not remembered: the next email tries again.
    made.catch(() => this.map.delete(key));
    this.map.set(key, made);
    if (this.map.size > this.max) {
      // Oldest first out; shapes are few, so this is a bound, not a policy.
      const oldest = this.map.keys().next().value!;
      this.map.delete(oldest);
      this.ready.delete(oldest);
    }
    return made;
  }
}

const cardTemplates = new TemplateCache(2_000);
const frameTemplates = new TemplateCache(2_000);

/** render() of a part on its own, without what render() wraps every document in: the doctype and its Suspense boundary's marks. */
const renderFragment = async (node: React.ReactElement) =>
  (await render(node))
    .replace(/^<!DOCTYPE[^>]*>/, '')
    .replace(/^<!--\$-->/, '')
    .replace(/<!--\/\$-->$/, '');

async function cardHtml(item: EmailItem): Promise<string> {
  const { props, s } = cardSentinels(item);
  const template = await cardTemplates.get(s.key, async () => compile(await renderFragment(<PostingCard item={props} />)));
  return fill(template, { values: s.values });
}

/** Every card's HTML: filled at once when all their shapes are compiled (the common case), else compiled first. */
async function cardsHtml(items: EmailItem[]): Promise<string[]> {
  const ready: string[] = [];
  for (const item of items) {
    const { s } = cardSentinels(item);
    const template = cardTemplates.peek(s.key);
    if (!template) return Promise.all(items.map(cardHtml));
    ready.push(fill(template, { values: s.values }));
  }
  return ready;
}

/** Stand-ins for the cards while a frame is compiled: each renders its own mark, and is cut out whole. */
const markerCards = (count: number): EmailItem[] =>
  Array.from({ length: count }, (_, i) => ({
    title: CARD_MARK(i),
    url: null,
    budget: null,
    published: null,
    excerpt: '',
    reasons: [],
    score: 0,
  }));

async function compileFrame(element: React.ReactElement, cards: EmailItem[], numberSlot: number | null = null): Promise<Template> {
  const [html, ...cardHtmls] = await Promise.all([render(element), ...cards.map((card) => renderFragment(<PostingCard item={card} />))]);
  return compile(html, { cards: cardHtmls, numberSlot });
}

/** `render(<DailyDigestEmail {...props} />)`, byte for byte. */
export async function renderDailyDigest(props: DailyDigestProps): Promise<string> {
  const s = new Sentinels();
  const markers = markerCards(props.items.length);
  const frameProps: DailyDigestProps = {
    dayLabel: s.text(props.dayLabel)!,
    items: markers,
    moreCount: s.count(props.moreCount),
    footer: footerSentinels(s, props.footer),
    note: s.text(props.note),
    nearMiss: s.text(props.nearMiss),
    nextDigest: s.text(props.nextDigest),
    sourcesLine: s.text(props.sourcesLine),
  };
  const template = await frameTemplates.get(`digest:${props.items.length}:${s.key}`, () =>
    compileFrame(<DailyDigestEmail {...frameProps} preview={PREVIEW_MARK} />, markers, s.numberSlot),
  );
  const cards = await cardsHtml(props.items);
  return fill(template, { values: s.values, cards, preview: props.preview ?? postingsPreheader(props.items, props.moreCount) });
}

/** `render(<InstantAlertEmail {...props} />)`, byte for byte. */
export async function renderInstantAlert(props: InstantAlertProps): Promise<string> {
  const s = new Sentinels();
  const markers = markerCards(props.items.length);
  const frameProps: InstantAlertProps = { items: markers, footer: footerSentinels(s, props.footer), note: s.text(props.note) };
  const template = await frameTemplates.get(`alert:${props.items.length}:${s.key}`, () =>
    compileFrame(<InstantAlertEmail {...frameProps} preview={PREVIEW_MARK} />, markers),
  );
  const cards = await cardsHtml(props.items);
  return fill(template, { values: s.values, cards, preview: props.preview ?? postingsPreheader(props.items) });
}

function footerSentinels(s: Sentinels, footer: DailyDigestProps['footer']): DailyDigestProps['footer'] {
  return {
    unsubscribeUrl: s.text(footer.unsubscribeUrl)!,
    preferencesUrl: s.text(footer.preferencesUrl),
    archiveUrl: s.text(footer.archiveUrl),
    feedUrl: s.text(footer.feedUrl),
  };
}
