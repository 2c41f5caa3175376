import { FeedParseError } from '../feed-errors';
import { collectSkills } from '../collect-skills';
import { capText, cleanPlainText, collapseWhitespace, htmlToPlainText } from '../plain-text';
import {
  MAX_DESCRIPTION,
  MAX_DESCRIPTION_INPUT,
  MAX_GUID,
  MAX_TITLE,
  MAX_TITLE_INPUT,
  postingId,
  type Budget,
  type Posting,
} from '../posting';
import { toPostingLink } from '../safe-url';
import { parsePayText } from '../../pay/parse-pay';

const MAX_SHORT = 200;
const MAX_SHORT_INPUT = 2_000;
const MAX_TAGS_INPUT = 50;

/** One job as an API adapter read it: still untrusted, already in Scout's terms. */
export type RawJob = {
  /** The provider's own id for the job: the posting's id is derived from it. */
  providerId: string;
  title: string;
  /** Whether `description` is HTML (most boards) or plain text. */
  description: { value: string; html: boolean } | null;
  url: string | null;
  company?: string | null;
  location?: string | null;
  remote?: boolean | null;
  /** Pay the API states in fields (`statedPay`); else the whole text is read for it, then the title. */
  budget?: Budget | null;
  publishedAt?: Date | string | number | null;
  tags?: string[];
};

/**
 * Normalises one job of any API kind the way the feed path normalises an item: plain text,
 * whitespace collapsed, control characters gone, every field capped, only absolute http(s) links
 * that aim at no private address (safe-url.ts).
 * Null when the job has neither a title nor a usable link.
 */
export function buildPosting(source: string, raw: RawJob): Posting | null {
  const titleText = cleanPlainText(raw.title, MAX_TITLE_INPUT);
  const title = capText(collapseWhitespace(titleText), MAX_TITLE);
  const url = toPostingLink(raw.url, null);
  if (!title && !url) return null;
  const descriptionText = raw.description
    ? raw.description.html
      ? htmlToPlainText(raw.description.value, MAX_DESCRIPTION_INPUT)
      : cleanPlainText(raw.description.value, MAX_DESCRIPTION_INPUT)
    : '';
  return {
    id: postingId(source, raw.providerId),
    source,
    guid: raw.providerId.slice(0, MAX_GUID),
    title,
    url,
    description: capText(collapseWhitespace(descriptionText), MAX_DESCRIPTION),
    budget: raw.budget ?? parsePayText(descriptionText) ?? parsePayText(titleText),
    skills: collectSkills((raw.tags ?? []).slice(0, MAX_TAGS_INPUT).map((tag) => cleanPlainText(tag, MAX_SHORT_INPUT))),
    publishedAt: toDate(raw.publishedAt),
    company: shortText(raw.company),
    location: shortText(raw.location),
    remote: raw.remote ?? null,
  };
}

/** Postings of one answer, ids unique (the first of a repeated id wins), jobs without title or link dropped. */
export function buildPostings(source: string, raws: RawJob[]): Posting[] {
  const seen = new Set<string>();
  const postings: Posting[] = [];
  for (const raw of raws) {
    const posting = buildPosting(source, raw);
    if (!posting || seen.has(posting.id)) continue;
    seen.add(posting.id);
    postings.push(posting);
  }
  return postings;
}

/** JSON.parse that fails as a FeedParseError with a short message (never quoting the body). */
export function parseJsonBody(source: string, text: string): unknown {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed) throw new FeedParseError(source, 'empty response');
  if (trimmed.startsWith('<')) throw new FeedParseError(source, 'HTML or XML instead of JSON');
  try {
    return JSON.parse(trimmed);
  } catch (error) {
    throw new FeedParseError(source, 'malformed JSON', { cause: error });
  }
}

function shortText(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  return capText(collapseWhitespace(cleanPlainText(value, MAX_SHORT_INPUT)), MAX_SHORT) || null;
}

/** ISO strings, epoch milliseconds; seconds are the adapter's to convert. Anything unreadable or absurd is null. */
function toDate(value: Date | string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(value);
  const time = date.getTime();
  // Before 2000 or more than a day ahead: a wrong unit or a broken field, not a publication date.
  if (Number.isNaN(time) || time < Date.UTC(2000, 0, 1) || time > Date.now() + 86_400_000) return null;
  return date;
}
