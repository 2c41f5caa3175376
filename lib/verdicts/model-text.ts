import { capText } from '../feeds/plain-text';
import { keywordPattern } from '../subscribers/keyword-pattern';

/**
 * The most of a posting's text the model reads (about 600 tokens at 4 characters a token). The
 * stored text is the whole posting (up to 40,000 characters) for matching; the model gets the parts
 * that decide fit, in the text's order, joined by " … ".
 */
export const MODEL_TEXT_CHARS = 2_400;
/** The opening says what the job is and who hires. */
const OPENING_CHARS = 400;
/** The requirements: the sections a posting heads Requirements, Qualifications, What you'll bring… */
const REQUIREMENTS_CHARS = 1_200;
const REQUIREMENTS_SECTION_CHARS = 600;
/** The passages naming the subscriber's keywords, each a sentence or two around the keyword. */
const KEYWORD_PASSAGES_CHARS = 800;
const KEYWORD_BEFORE = 100;
const KEYWORD_AFTER = 200;
const GAP = ' … ';

/**
 * Headings of the part of a posting that says what the job asks of a person. Stored text has its
 * whitespace collapsed, so a heading is found by its words, not by its line.
 */
const REQUIREMENTS_HEADING =
  /(?<![\p{L}\p{N}])(?:(?:minimum|basic|preferred|key|required|desired) )?(?:requirements|qualifications|what you(?:['’]ll| will) (?:bring|need)|what you bring|what we(?:['’]re| are) looking for|what we look for|who you are|about you|you (?:will )?have|you might be a (?:good )?fit|must[- ]haves?|nice[- ]to[- ]haves?|skills (?:and|&) experience|your (?:profile|background|experience)|ideal candidate)(?![\p{L}\p{N}])/giu;

type Span = { start: number; end: number };

/**
 * The bounded text the model reads of a posting: the whole text when it is short; otherwise its
 * opening, its requirements sections and the passages naming the subscriber's keywords, at most
 * MODEL_TEXT_CHARS. The title is sent beside it, whole.
 */
export function textForModel(description: string, keywords: readonly string[], max: number = MODEL_TEXT_CHARS): string {
  if (description.length <= max) return description;
  const spans: Span[] = [{ start: 0, end: OPENING_CHARS }];

  let requirements = 0;
  for (const heading of description.matchAll(REQUIREMENTS_HEADING)) {
    if (requirements >= REQUIREMENTS_CHARS) break;
    // A heading inside the opening still gets its section; one inside a section already taken does not.
    if (covered(spans.slice(1), heading.index)) continue;
    const length = Math.min(REQUIREMENTS_SECTION_CHARS, REQUIREMENTS_CHARS - requirements);
    spans.push({ start: heading.index, end: heading.index + length });
    requirements += length;
  }

  let passages = 0;
  for (const keyword of keywords) {
    if (passages + KEYWORD_BEFORE + KEYWORD_AFTER > KEYWORD_PASSAGES_CHARS) break;
    const found = keywordPattern(keyword).exec(description);
    if (!found || covered(spans, found.index)) continue;
    spans.push({ start: Math.max(0, found.index - KEYWORD_BEFORE), end: found.index + KEYWORD_AFTER });
    passages += KEYWORD_BEFORE + KEYWORD_AFTER;
  }

  const text = merge(spans, description.length)
    .map((span) => atWords(description, span))
    .filter(Boolean)
    .join(GAP);
  return capText(text, max);
}

const covered = (spans: Span[], at: number) => spans.some((span) => at >= span.start && at < span.end);

/** In text order, overlapping or touching spans made one, each inside the text. */
function merge(spans: Span[], length: number): Span[] {
  const merged: Span[] = [];
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const end = Math.min(span.end, length);
    const last = merged.at(-1);
    if (last && span.start <= last.end + GAP.length) last.end = Math.max(last.end, end);
    else merged.push({ start: span.start, end });
  }
  return merged;
}

/** A span's text, shrunk to whole words where it would cut one (the text's own ends are kept). */
function atWords(text: string, span: Span): string {
  let { start, end } = span;
  if (start > 0 && text[start - 1] !== ' ') {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < end) start = space + 1;
  }
  if (end < text.length && text[end] !== ' ') {
    const space = text.lastIndexOf(' ', end);
    if (space > start) end = space;
  }
  return text.slice(start, end).trim();
}
