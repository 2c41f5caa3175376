import { z } from 'zod';
import { FeedFetchError, FeedParseError } from '../feed-errors';
import type { Posting } from '../posting';
import type { SourceAdapter } from '../source-adapter';
import type { SourceHttp } from '../source-http';
import { baseUrlParam, boardName, companyParam, namesOf, originOf } from './board-jobs';
import { lenient, parseAnswer, parseJobs } from './job-fields';
import { buildPostings, parseJsonBody, type RawJob } from './build-posting';

/**
 * `board`: the board token in `boards.greenhouse.io/{board}`. `company`: the employer's name on the
 * cards; without it each job's `company_name`, and only for a list whose jobs lack one, the board's
 * own name, asked once per changed list (`GET /v1/boards/{board}`).
 * `baseUrl`: the API origin, `https://boards-api.greenhouse.io` unless the local stack or a test
 * points it elsewhere.
 */
export const greenhouseParams = z.object({ board: boardName, company: companyParam, baseUrl: baseUrlParam }).strict();
type GreenhouseParams = z.output<typeof greenhouseParams>;

const GREENHOUSE_ORIGIN = 'https://boards-api.greenhouse.io';

const answerSchema = z.object({ jobs: z.array(z.unknown()) });
// Fields of "List jobs" with ?content=true (developers.greenhouse.io/job-board.html), and two that
// every real answer carries though the page does not list them: `first_published` and `company_name`.
const jobSchema = z.object({
  // The job *post* id: one job can have several posts, each a listing of its own.
  id: z.int().nonnegative(),
  title: z.string(),
  // A bulk edit moves every job's updated_at to one instant; first_published is when it was listed.
  first_published: lenient(z.string()),
  updated_at: lenient(z.string()),
  company_name: lenient(z.string()),
  location: lenient(z.object({ name: lenient(z.string()) })),
  absolute_url: lenient(z.string()),
  content: lenient(z.string()),
  departments: lenient(z.array(z.unknown())),
  offices: lenient(z.array(z.unknown())),
  metadata: lenient(z.array(z.unknown())),
});
const boardSchema = z.object({ name: z.string() });

/**
 * Greenhouse Job Board API: one GET of the whole board (no pagination is documented). Pay ranges
 * exist only on the single-job endpoint with `pay_transparency=true`; asking it for every job
 * would be one request per posting per poll, so the list's content text is all the pay Scout reads.
 */
export const greenhouseAdapter: SourceAdapter<GreenhouseParams> = {
  kind: 'greenhouse',
  documentation: 'https://developers.greenhouse.io/job-board.html (List jobs, Retrieve job board)',
  params: greenhouseParams,
  redirects: 'same-host',
  // Greenhouse documents no rate limit for the public Job Board GETs: every run may ask.
  minIntervalMinutes: 0,
  label: (source) => `Greenhouse · ${source.params.company ?? source.params.board}`,
  async read({ source, http, validators }) {
    const origin = originOf(source.params.baseUrl, GREENHOUSE_ORIGIN);
    const boardPath = `${origin}/v1/boards/${encodeURIComponent(source.params.board)}`;
    // Validators are not documented; sending them costs nothing and a 304 is handled.
    const answer = await http.request(`${boardPath}/jobs?content=true`, {
      etag: validators?.etag,
      lastModified: validators?.lastModified,
    });
    if (answer.status === 'not-modified') return answer;
    const jobs = readGreenhouseJobs(source.id, answer.text);
    const company = source.params.company ?? null;
    // Real answers name the employer on every job; the board is asked only for a list that does not.
    const unnamed = company === null && jobs.some((job) => !job.company_name?.trim());
    const boardName = unnamed ? await boardCompanyName(source.id, http, boardPath) : null;
    return {
      status: 'ok',
      postings: greenhousePostings(source.id, jobs, { company, boardName }),
      validators: { etag: answer.etag, lastModified: answer.lastModified },
    };
  },
};

type GreenhouseJob = z.output<typeof jobSchema>;
/** The employer on the cards: the operator's `company`, else each job's own, else the board's name. */
type EmployerNames = { company: string | null; boardName?: string | null };

/** The jobs of one "List jobs" answer as Postings; throws FeedParseError for an answer not of the documented shape. */
export function parseGreenhouseJobs(source: string, text: string, names: EmployerNames): Posting[] {
  return greenhousePostings(source, readGreenhouseJobs(source, text), names);
}

function readGreenhouseJobs(source: string, text: string): GreenhouseJob[] {
  const answer = parseAnswer(source, parseJsonBody(source, text), answerSchema, 'Greenhouse answer');
  return parseJobs(source, answer.jobs, jobSchema, 'job');
}

function greenhousePostings(source: string, jobs: GreenhouseJob[], names: EmployerNames): Posting[] {
  return buildPostings(
    source,
    jobs.map((job) => toRawJob(job, names)),
  );
}

function toRawJob(job: GreenhouseJob, names: EmployerNames): RawJob {
  const location = job.location?.name?.trim() || null;
  return {
    providerId: String(job.id),
    title: job.title,
    description: job.content ? { value: unescapeContent(job.content), html: true } : null,
    url: job.absolute_url ?? null,
    company: names.company ?? (job.company_name?.trim() || names.boardName || null),
    location,
    remote: workplaceOf(job.metadata) ?? saysRemote(location),
    publishedAt: job.first_published ?? job.updated_at ?? null,
    tags: [...namesOf(job.departments, 'name'), ...namesOf(job.offices, 'name'), ...namesOf(job.metadata, 'value')],
  };
}

/**
 * Greenhouse turns the HTML of a post into entities ("Any HTML included … will be automatically
 * converted into corresponding HTML entities"): `&lt;p&gt;` is markup, `&amp;amp;` a literal `&`.
 * One level is undone here, in a single pass so `&amp;lt;` becomes `&lt;` and never `<`; the
 * HTML → text step then decodes the text's own entities. Content that already carries real tags
 * was not escaped and is left alone.
 */
export function unescapeContent(content: string): string {
  if (/<[a-z!/]/i.test(content)) return content;
  return content.replace(/&(lt|gt|amp|quot|apos|#39|#x27);/gi, (_, name: string) => ESCAPES[name.toLowerCase()]);
}
const ESCAPES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", '#39': "'", '#x27': "'" };

/**
 * Remote from a board's own custom field, where it keeps one: real boards name it "Location Type"
 * or "Workplace Type" (values such as Remote, On-Site, Hybrid). Hybrid asks for days at a place,
 * so, as with Lever's and Ashby's hybrid jobs, it reads as not remote.
 */
function workplaceOf(metadata: unknown[] | null | undefined): boolean | null {
  for (const field of metadata ?? []) {
    if (typeof field !== 'object' || field === null) continue;
    const { name, value } = field as { name?: unknown; value?: unknown };
    if (typeof name !== 'string' || !/^(location|workplace) type$/i.test(name.trim()) || typeof value !== 'string') continue;
    if (/^remote$/i.test(value.trim())) return true;
    if (/^(on[- ]?site|hybrid)$/i.test(value.trim())) return false;
  }
  return null;
}

// Without such a field the location's free text is all there is. A location that does not say
// "remote" is not a statement that the job is on site.
function saysRemote(location: string | null): boolean | null {
  return location && /\b(remote|anywhere)\b/i.test(location) ? true : null;
}

/** The board's display name ("Retrieve job board"); a failure costs the cards their company, not the postings. */
async function boardCompanyName(source: string, http: SourceHttp, boardPath: string): Promise<string | null> {
  try {
    const answer = await http.request(boardPath);
    if (answer.status !== 'ok') return null;
    return parseAnswer(source, parseJsonBody(source, answer.text), boardSchema, 'Greenhouse board').name.trim() || null;
  } catch (error) {
    if (error instanceof FeedFetchError || error instanceof FeedParseError) return null;
    throw error;
  }
}
