import type { FeedItem, FeedText } from './feed-items';
import { parsePayText } from '../pay/parse-pay';
import { parseScoutBudget } from './scout-budget';
import { collectSkills, findSkillsLines } from './collect-skills';
import { unwrapJobTitle } from './job-title';
import { capText, cleanPlainText, collapseWhitespace, htmlToPlainText } from './plain-text';
import {
  IDENTITY_DESCRIPTION_CHARS,
  MAX_DESCRIPTION,
  MAX_DESCRIPTION_INPUT,
  MAX_GUID,
  MAX_TITLE,
  MAX_TITLE_INPUT,
  postingId,
  type Posting,
} from './posting';
import { toPostingLink, toSafeUrl } from './safe-url';

const MAX_CATEGORY_INPUT = 500;
const MAX_SHORT = 200;
// "Anywhere in the World", "Remote (EU)", "Worldwide": a place that is itself remote work.
const REMOTE_PLACE = /\b(?:remote|anywhere|worldwide)\b/i;
// Upwork's job feed (and the boards that copy its format) ends each item with labelled lines, one
// of them "Posted On"; its "Country" is the client's, as the Upwork adapter says it.
const POSTED_ON_LINE = /^[ \t]*Posted On[ \t]*:/im;
const COUNTRY_LINE = /^[ \t]*Country[ \t]*:[ \t]*(\S[^\n]{0,79}?)[ \t]*$/im;

export type FeedContext = {
  source: string;
  baseUrl: string | null;
  /** The feed names the employer before a colon in its titles (job-title.ts). */
  companyInTitle?: boolean;
  /** The feed names the employer after "at" at the end of its titles (job-title.ts). */
  companyAtEnd?: boolean;
  /** The feed is a remote-only board's (feed-job-fields.ts). */
  remoteOnly?: boolean;
  /** The names the feed goes by, which its titles may repeat (job-title.ts). */
  siteNames?: string[];
};

/** Normalises one raw item; null when it has neither a title nor a usable link. */
export function toPosting(item: FeedItem, context: FeedContext): Posting | null {
  const titleText = readText(item.title, MAX_TITLE_INPUT);
  const rawTitle = capText(collapseWhitespace(titleText), MAX_TITLE);
  const named = unwrapJobTitle(rawTitle, {
    company: item.job?.company ?? null,
    companyInTitle: context.companyInTitle ?? false,
    companyAtEnd: context.companyAtEnd ?? false,
    siteNames: context.siteNames,
  });
  const title = named.title;
  // The id keeps the link as the item gave it: dropping a private link must not move the id.
  const identityUrl = toSafeUrl(item.link, context.baseUrl);
  const url = toPostingLink(item.link, context.baseUrl);
  if (!title && !url) return null;

  const descriptionText = readText(item.description, MAX_DESCRIPTION_INPUT);
  const description = capText(collapseWhitespace(descriptionText), MAX_DESCRIPTION);
  const guid = item.guid?.trim() || null;
  const publishedAt = parseDate(item.published);
  // The title as sent: an item's id must not move when the way its title is read improves.
  const key = guid ?? identityUrl ?? contentKey(rawTitle, publishedAt, description);
  const place = item.job?.place ?? labelledClientPlace(descriptionText);
  const location = place ? capText(place, MAX_SHORT) : null;
  const remote = item.job?.remote ?? (location && REMOTE_PLACE.test(location) ? true : context.remoteOnly ? true : null);

  return {
    id: postingId(context.source, key),
    source: context.source,
    guid: guid === null ? null : guid.slice(0, MAX_GUID),
    title,
    url,
    description,
    budget: parseScoutBudget(item.scout) ?? parsePayText(descriptionText) ?? parsePayText(titleText),
    skills: collectSkills([
      ...item.categories.map((category) => htmlToPlainText(category, MAX_CATEGORY_INPUT)),
      ...(item.job?.skills ?? []),
      ...(item.job?.type ? [item.job.type] : []),
      ...findSkillsLines(descriptionText),
    ]),
    publishedAt,
    // Only what the feed states: a plain feed's postings stay as they were, without these fields.
    ...(named.company ? { company: capText(named.company, MAX_SHORT) } : {}),
    ...(location ? { location } : {}),
    ...(remote !== null ? { remote } : {}),
  };
}

/** "Client in Canada" from a feed item's "Country: Canada" line, in Upwork's format only; null otherwise. */
function labelledClientPlace(text: string): string | null {
  if (!POSTED_ON_LINE.test(text)) return null;
  const country = COUNTRY_LINE.exec(text)?.[1];
  return country ? `Client in ${collapseWhitespace(country)}` : null;
}

function readText(text: FeedText | null, maxInput: number): string {
  if (!text) return '';
  return text.html ? htmlToPlainText(text.value, maxInput) : cleanPlainText(text.value, maxInput);
}

// Built from normalised fields, so the same item hashes the same on every fetch; from the text as
// it was cut before the whole text was kept, so an item stored then keeps its id.
function contentKey(title: string, publishedAt: Date | null, description: string): string {
  return [title, publishedAt?.toISOString() ?? '', capText(description, IDENTITY_DESCRIPTION_CHARS)].join('\n');
}

function parseDate(raw: string | null): Date | null {
  if (!raw) return null;
  const date = new Date(raw.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}
