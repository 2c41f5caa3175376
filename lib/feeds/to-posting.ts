import type { FeedItem, FeedText } from './feed-items';
import { parseBudgetText, parseScoutBudget } from './parse-budget';
import { collectSkills, findSkillsLines } from './collect-skills';
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
import { toSafeUrl } from './safe-url';

const MAX_CATEGORY_INPUT = 500;

/** Normalises one raw item; null when it has neither a title nor a usable link. */
export function toPosting(item: FeedItem, context: { source: string; baseUrl: string | null }): Posting | null {
  const titleText = readText(item.title, MAX_TITLE_INPUT);
  const title = capText(collapseWhitespace(titleText), MAX_TITLE);
  const url = toSafeUrl(item.link, context.baseUrl);
  if (!title && !url) return null;

  const descriptionText = readText(item.description, MAX_DESCRIPTION_INPUT);
  const description = capText(collapseWhitespace(descriptionText), MAX_DESCRIPTION);
  const guid = item.guid?.trim() || null;
  const publishedAt = parseDate(item.published);
  const key = guid ?? url ?? contentKey(title, publishedAt, description);

  return {
    id: postingId(context.source, key),
    source: context.source,
    guid: guid === null ? null : guid.slice(0, MAX_GUID),
    title,
    url,
    description,
    budget: parseScoutBudget(item.scout) ?? parseBudgetText(descriptionText) ?? parseBudgetText(titleText),
    skills: collectSkills([
      ...item.categories.map((category) => htmlToPlainText(category, MAX_CATEGORY_INPUT)),
      ...findSkillsLines(descriptionText),
    ]),
    publishedAt,
  };
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
