import { z } from 'zod';
import { FeedFetchError, FeedParseError } from '../feed-errors';
import { capText, collapseWhitespace, htmlToPlainText } from '../plain-text';
import type { SourceAdapter } from '../source-adapter';
import { buildPostings, parseJsonBody, type RawJob } from './build-posting';
import { parseHiringLine } from './hn-first-line';
import { optionalNumber, optionalText, parseAnswer, parseJobs } from './job-fields';

/** params of an `hn-whoishiring` source: only `baseUrl`, https://hn.algolia.com unless a local stack stands in for it. */
export const hnWhoIsHiringParams = z
  .object({ baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://hn.algolia.com') })
  .strict();

type HnParams = z.output<typeof hnWhoIsHiringParams>;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
// The whoishiring account posts three threads at once; only this title is the job thread.
const THREAD_TITLE = /^Ask HN: Who is hiring\? \(([A-Z][a-z]+) (\d{4})\)$/;
const FALLBACK_TITLE = 300;

const searchSchema = z.object({
  hits: z.array(z.object({ objectID: z.string().regex(/^\d+$/), title: optionalText, created_at_i: optionalNumber })),
});
// items/:id (item_serializer.rb): the story, its top-level comments in `children`. A deleted or dead
// comment keeps only `id` and `children`; replies to a comment sit in that comment's own `children`.
const threadSchema = z.object({ id: z.int(), children: z.array(z.unknown()) });
const commentSchema = z.object({
  id: z.int().positive(),
  text: z.string().nullish(),
  created_at_i: optionalNumber,
  created_at: optionalText,
  deleted: z.unknown().optional(),
  dead: z.unknown().optional(),
});

/**
 * Hacker News' monthly "Ask HN: Who is hiring?" thread, through the Algolia HN Search API: the
 * thread of the run's month (or, early in a month before it is posted, the previous month's) is
 * found among the whoishiring account's newest stories, and each live top-level comment is one
 * posting, read from its first line's `Company | Role | Location | REMOTE | Salary` convention, or
 * titled with the comment itself when the line does not follow it. The API allows 10,000 requests
 * an hour per IP and asks no attribution; each posting links to its comment on HN.
 */
export const hnWhoIsHiringAdapter: SourceAdapter<HnParams> = {
  kind: 'hn-whoishiring',
  documentation: 'https://hn.algolia.com/api (search_by_date with tags=story,author_whoishiring; items/:id)',
  params: hnWhoIsHiringParams,
  redirects: 'same-host',
  minIntervalMinutes: 0,
  label: () => 'Hacker News · Who is hiring?',
  async read({ source, http, validators, now }) {
    const search = new URL('/api/v1/search_by_date', source.params.baseUrl);
    search.search = new URLSearchParams({ tags: 'story,author_whoishiring', hitsPerPage: '20' }).toString();
    const found = await http.request(search.href);
    if (found.status === 'not-modified') throw new FeedParseError(source.id, 'thread search answered 304 to a plain request');
    const { hits } = parseAnswer(source.id, parseJsonBody(source.id, found.text), searchSchema, 'thread search');
    const threadId = pickThread(hits, now);
    // Not a broken answer: a late thread (early in a month) is a wait, so it never counts toward
    // the parse failures that disable a source.
    if (!threadId) throw new FeedFetchError({ source: source.id, message: 'no Who is hiring thread found' });

    // The validators of the last success belong to the thread's item (the search changes every hour).
    const answer = await http.request(new URL(`/api/v1/items/${threadId}`, source.params.baseUrl).href, {
      etag: validators?.etag,
      lastModified: validators?.lastModified,
    });
    if (answer.status === 'not-modified') return answer;
    const thread = parseAnswer(source.id, parseJsonBody(source.id, answer.text), threadSchema, 'thread');
    const comments = parseJobs(source.id, thread.children, commentSchema, 'comment');
    const raws = comments.filter((comment) => comment.text && !comment.deleted && !comment.dead).map((comment) => toRawJob(comment));
    return {
      status: 'ok',
      postings: buildPostings(source.id, raws),
      validators: { etag: answer.etag, lastModified: answer.lastModified },
    };
  },
};

/** The thread titled with `now`'s month; else the previous month's; the newest if one was posted twice. */
export function pickThread(hits: z.output<typeof searchSchema>['hits'], now: Date): string | null {
  const month = (offset: number) => {
    const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - offset, 1));
    return `${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
  };
  for (const wanted of [month(0), month(1)]) {
    const threads = hits
      .filter((hit) => {
        const title = THREAD_TITLE.exec(hit.title ?? '');
        return title !== null && `${title[1]} ${title[2]}` === wanted;
      })
      .sort((a, b) => (b.created_at_i ?? 0) - (a.created_at_i ?? 0));
    if (threads.length > 0) return threads[0].objectID;
  }
  return null;
}

function toRawJob(comment: z.output<typeof commentSchema>): RawJob {
  const html = comment.text!;
  const line = parseHiringLine(firstLine(html));
  const base = {
    providerId: String(comment.id),
    description: { value: html, html: true },
    url: `https://news.ycombinator.com/item?id=${comment.id}`,
    // created_at_i is in seconds; created_at is the same moment as ISO UTC.
    publishedAt: comment.created_at_i ? comment.created_at_i * 1000 : comment.created_at,
  };
  if (!line) return { ...base, title: capText(collapseWhitespace(htmlToPlainText(html, 10_000)), FALLBACK_TITLE) };
  return {
    ...base,
    title: line.role,
    company: line.company,
    location: line.location,
    remote: line.remote,
    ...(line.budget ? { budget: line.budget } : {}),
    tags: line.tags,
  };
}

/** HN separates paragraphs with <p> (the API also wraps the text in one): the first with any text in it. */
function firstLine(html: string): string {
  for (const part of html.slice(0, 10_000).split(/<\/?p>|<br\s*\/?>|\n/i)) {
    const text = collapseWhitespace(htmlToPlainText(part, 2_000));
    if (text) return text;
  }
  return '';
}
