import { z } from 'zod';
import type { Budget, Posting } from '../posting';
import type { SourceAdapter } from '../source-adapter';
import { parsePayText, statedPay, type StatedPeriod } from '../../pay/parse-pay';
import { htmlToPlainText } from '../plain-text';
import { baseUrlParam, boardName, companyParam, originOf, stringsOf } from './board-jobs';
import { lenient, parseAnswer, parseJobs } from './job-fields';
import { buildPostings, parseJsonBody, type RawJob } from './build-posting';

/**
 * `site`: the company's name in `jobs.lever.co/{site}`. `region`: `global` (api.lever.co, the
 * default) or `eu` (api.eu.lever.co) — Lever serves each account from one of the two. `company`:
 * the employer's name on the cards (the API does not give it). `baseUrl`: an origin that replaces
 * the region's (the local stack, tests).
 */
export const leverParams = z
  .object({ site: boardName, region: z.enum(['global', 'eu']).default('global'), company: companyParam, baseUrl: baseUrlParam })
  .strict();
type LeverParams = z.output<typeof leverParams>;

const LEVER_ORIGINS = { global: 'https://api.lever.co', eu: 'https://api.eu.lever.co' } as const;

const answerSchema = z.array(z.unknown());
// Fields of "Get a list of job postings" in JSON mode (github.com/lever/postings-api README).
const jobSchema = z.object({
  id: z.string().min(1),
  text: z.string(),
  categories: lenient(
    z.object({
      commitment: lenient(z.string()),
      department: lenient(z.string()),
      location: lenient(z.string()),
      team: lenient(z.string()),
      allLocations: lenient(z.array(z.unknown())),
    }),
  ),
  workplaceType: lenient(z.string()),
  // Not in the README's field table, but on every live answer: epoch milliseconds.
  createdAt: lenient(z.number()),
  description: lenient(z.string()),
  descriptionPlain: lenient(z.string()),
  lists: lenient(z.array(z.unknown())),
  additional: lenient(z.string()),
  hostedUrl: lenient(z.string()),
  salaryRange: lenient(
    z.object({ currency: lenient(z.string()), interval: lenient(z.string()), min: lenient(z.number()), max: lenient(z.number()) }),
  ),
  // Optional in the README: the employer's words on pay, apart from the description.
  salaryDescription: lenient(z.string()),
  salaryDescriptionPlain: lenient(z.string()),
});
type LeverJob = z.output<typeof jobSchema>;

/**
 * Lever Postings API: one GET of the site's published postings in JSON mode. Paging (`skip`,
 * `limit`) is documented but no default page size is, and unpaged answers are reported to hold
 * hundreds of postings, so Scout asks once.
 */
export const leverAdapter: SourceAdapter<LeverParams> = {
  kind: 'lever',
  documentation: 'https://github.com/lever/postings-api#get-a-list-of-job-postings',
  params: leverParams,
  redirects: 'same-host',
  // Lever documents a limit only for application POSTs, none for reading postings: every run may ask.
  minIntervalMinutes: 0,
  label: (source) => `Lever · ${source.params.company ?? source.params.site}`,
  async read({ source, http, validators }) {
    // Validators are not documented; sending them costs nothing and a 304 is handled.
    const answer = await http.request(leverPostingsUrl(source.params), {
      etag: validators?.etag,
      lastModified: validators?.lastModified,
    });
    if (answer.status === 'not-modified') return answer;
    return {
      status: 'ok',
      postings: parseLeverPostings(source.id, answer.text, { company: source.params.company ?? null }),
      validators: { etag: answer.etag, lastModified: answer.lastModified },
    };
  },
};

export function leverPostingsUrl(params: Pick<LeverParams, 'site' | 'region' | 'baseUrl'>): string {
  const origin = originOf(params.baseUrl, LEVER_ORIGINS[params.region ?? 'global']);
  return `${origin}/v0/postings/${encodeURIComponent(params.site)}?mode=json`;
}

/** The postings of one JSON-mode answer; throws FeedParseError for an answer not of the documented shape. */
export function parseLeverPostings(source: string, text: string, options: { company: string | null }): Posting[] {
  const answer = parseAnswer(source, parseJsonBody(source, text), answerSchema, 'Lever answer');
  const jobs = parseJobs(source, answer, jobSchema, 'posting');
  return buildPostings(
    source,
    jobs.map((job) => toRawJob(job, options.company)),
  );
}

function toRawJob(job: LeverJob, company: string | null): RawJob {
  const categories = job.categories;
  const allLocations = stringsOf(categories?.allLocations);
  const location = allLocations.length > 0 ? allLocations.join('; ') : (categories?.location ?? null);
  // Real answers spell it `onsite`; the docs, `on-site`. Both are read as one value.
  const workplace = job.workplaceType?.toLowerCase().replace(/[-_\s]/g, '') ?? null;
  return {
    providerId: job.id,
    title: job.text,
    description: describe(job),
    url: job.hostedUrl ?? null,
    company,
    location,
    // `unspecified` says nothing; `hybrid` and `onsite` say the job is not remote.
    remote: workplace === 'remote' ? true : workplace === 'hybrid' || workplace === 'onsite' ? false : null,
    budget: salaryOf(job.salaryRange) ?? salaryTextOf(job),
    publishedAt: job.createdAt ?? null,
    tags: [categories?.team, categories?.department, categories?.commitment, workplace === 'unspecified' ? null : job.workplaceType].filter(
      (tag): tag is string => typeof tag === 'string',
    ),
  };
}

/**
 * The whole posting as HTML: `description` (opening and body) then each of `lists` — its name,
 * then its `<li>` items — then `additional`, so one HTML → text step reads all of it the way the
 * hosted page shows it.
 */
function describe(job: LeverJob): RawJob['description'] {
  const parts = [job.description ?? (job.descriptionPlain ? `<p>${escapeHtml(job.descriptionPlain)}</p>` : '')];
  for (const list of job.lists ?? []) {
    if (typeof list !== 'object' || list === null) continue;
    const { text, content } = list as { text?: unknown; content?: unknown };
    if (typeof text === 'string' && text.trim()) parts.push(`<h4>${escapeHtml(text)}</h4>`);
    if (typeof content === 'string' && content.trim()) parts.push(`<ul>${content}</ul>`);
  }
  if (job.additional) parts.push(job.additional);
  const html = parts.filter(Boolean).join('\n');
  return html ? { value: html, html: true } : null;
}

/**
 * `salaryRange.interval` has no documented values. Those seen in live answers: `per-year-salary`,
 * `per-hour-wage`, `per-month-salary`, `per-week-salary`, `per-day-wage`, each kept as the period it
 * names (a week, which has no kind, is 52 to the year). Anything else is left to the text.
 */
const INTERVALS = new Map<string, StatedPeriod>([
  ['per-year-salary', 'yearly'],
  ['per-hour-wage', 'hourly'],
  ['per-month-salary', 'monthly'],
  ['per-week-salary', 'weekly'],
  ['per-day-wage', 'daily'],
]);

function salaryOf(range: LeverJob['salaryRange']): Budget | null {
  const period = range?.interval ? INTERVALS.get(range.interval.trim().toLowerCase()) : undefined;
  if (!range || !period) return null;
  return statedPay({ min: range.min, max: range.max, currency: range.currency, period });
}

/** The pay section's own text, read before the description (which may quote other sums). */
function salaryTextOf(job: LeverJob): Budget | null {
  const text = job.salaryDescriptionPlain?.trim()
    ? job.salaryDescriptionPlain
    : job.salaryDescription
      ? htmlToPlainText(job.salaryDescription, 10_000)
      : '';
  return text ? parsePayText(text) : null;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
