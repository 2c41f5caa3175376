import { z } from 'zod';
import { FeedParseError } from '../feed-errors';
import type { Budget, Posting } from '../posting';
import type { SourceAdapter } from '../source-adapter';
import { parsePayText, statedPay, type StatedPeriod } from '../../pay/parse-pay';
import { baseUrlParam, boardName, companyParam, originOf } from './board-jobs';
import { lenient, parseAnswer, parseJobs } from './job-fields';
import { buildPostings, parseJsonBody, type RawJob } from './build-posting';

/**
 * `board`: the job board name in `jobs.ashbyhq.com/{board}`. `company`: the employer's name on the
 * cards (the API does not give it). `baseUrl`: the API origin, `https://api.ashbyhq.com` unless the
 * local stack or a test points it elsewhere.
 */
export const ashbyParams = z.object({ board: boardName, company: companyParam, baseUrl: baseUrlParam }).strict();
type AshbyParams = z.output<typeof ashbyParams>;

const ASHBY_ORIGIN = 'https://api.ashbyhq.com';

const componentSchema = z.object({
  compensationType: lenient(z.string()),
  interval: lenient(z.string()),
  currencyCode: lenient(z.string()),
  minValue: lenient(z.number()),
  maxValue: lenient(z.number()),
});
const answerSchema = z.object({ jobs: z.array(z.unknown()) });
// Fields of the "Ashby Job Postings API" example (developers.ashbyhq.com/docs/public-job-posting-api).
const jobSchema = z.object({
  // Not in the docs' example but on every live answer; when absent, jobUrl's last segment is the same id.
  id: z.string().min(1).nullish(),
  title: z.string(),
  location: lenient(z.string()),
  secondaryLocations: lenient(z.array(z.unknown())),
  department: lenient(z.string()),
  team: lenient(z.string()),
  isListed: lenient(z.boolean()),
  isRemote: lenient(z.boolean()),
  // Added 2026-02-19 (changelog): OnSite, Remote or Hybrid; older answers lack it.
  workplaceType: lenient(z.string()),
  descriptionHtml: lenient(z.string()),
  descriptionPlain: lenient(z.string()),
  publishedAt: lenient(z.string()),
  employmentType: lenient(z.string()),
  jobUrl: lenient(z.string()),
  compensation: lenient(
    z.object({
      compensationTiers: lenient(z.array(z.object({ components: lenient(z.array(componentSchema.catch({}))) }).catch({}))),
      summaryComponents: lenient(z.array(componentSchema.catch({}))),
      // "$151K – $231K • Offers Equity • Multiple Ranges": what the board shows, all tiers in one range.
      compensationTierSummary: lenient(z.string()),
    }),
  ),
});
type AshbyJob = z.output<typeof jobSchema>;

/**
 * Ashby public job posting API: one GET of the whole board with compensation (no pagination is
 * documented). Unlisted postings (`isListed: false`) are shared by link only and are skipped.
 */
export const ashbyAdapter: SourceAdapter<AshbyParams> = {
  kind: 'ashby',
  documentation: 'https://developers.ashbyhq.com/docs/public-job-posting-api',
  params: ashbyParams,
  redirects: 'same-host',
  // Ashby documents no rate limit for the public posting API: every run may ask.
  minIntervalMinutes: 0,
  label: (source) => `Ashby · ${source.params.company ?? source.params.board}`,
  async read({ source, http, validators }) {
    const origin = originOf(source.params.baseUrl, ASHBY_ORIGIN);
    // Validators are not documented; sending them costs nothing and a 304 is handled.
    const answer = await http.request(
      `${origin}/posting-api/job-board/${encodeURIComponent(source.params.board)}?includeCompensation=true`,
      {
        etag: validators?.etag,
        lastModified: validators?.lastModified,
      },
    );
    if (answer.status === 'not-modified') return answer;
    return {
      status: 'ok',
      postings: parseAshbyJobs(source.id, answer.text, { company: source.params.company ?? null }),
      validators: { etag: answer.etag, lastModified: answer.lastModified },
    };
  },
};

/** The listed jobs of one job-board answer; throws FeedParseError for an answer not of the documented shape. */
export function parseAshbyJobs(source: string, text: string, options: { company: string | null }): Posting[] {
  const answer = parseAnswer(source, parseJsonBody(source, text), answerSchema, 'Ashby answer');
  const jobs = parseJobs(source, answer.jobs, jobSchema, 'job');
  const listed = jobs.flatMap((job, index) => (job.isListed === false ? [] : [toRawJob(source, job, index, options.company)]));
  return buildPostings(source, listed);
}

function toRawJob(source: string, job: AshbyJob, index: number, company: string | null): RawJob {
  const locations = [job.location, ...(job.secondaryLocations ?? []).map(locationName)].filter(
    (name): name is string => typeof name === 'string' && name.trim() !== '',
  );
  return {
    providerId: job.id ?? idFromJobUrl(source, job.jobUrl, index),
    title: job.title,
    description: job.descriptionPlain?.trim()
      ? { value: job.descriptionPlain, html: false }
      : job.descriptionHtml
        ? { value: job.descriptionHtml, html: true }
        : null,
    url: job.jobUrl ?? null,
    company,
    location: [...new Set(locations)].join('; ') || null,
    remote: remoteOf(job),
    budget: salaryOf(job.compensation),
    publishedAt: job.publishedAt ?? null,
    tags: [job.department, job.team, job.employmentType, job.workplaceType].filter((tag): tag is string => typeof tag === 'string'),
  };
}

function locationName(entry: unknown): string | null {
  const name = typeof entry === 'object' && entry !== null ? (entry as { location?: unknown }).location : null;
  return typeof name === 'string' ? name : null;
}

/** `https://jobs.ashbyhq.com/{board}/{id}`: the id is the last path segment. No id either way refuses the answer. */
function idFromJobUrl(source: string, jobUrl: string | null | undefined, index: number): string {
  let segment: string | undefined;
  try {
    segment = jobUrl ? new URL(jobUrl).pathname.split('/').filter(Boolean).at(-1) : undefined;
  } catch {
    segment = undefined;
  }
  if (!segment) throw new FeedParseError(source, `jobs[${index}].id is missing and jobUrl names no job`);
  return segment;
}

// workplaceType, when present, is the newer and finer statement; isRemote is what older answers have.
// Real answers often send isRemote true beside Hybrid: the job still asks for days at a place, so a
// subscriber who wants remote work would be misled by "remote" — Hybrid reads as not remote.
function remoteOf(job: AshbyJob): boolean | null {
  switch (job.workplaceType) {
    case 'Remote':
      return true;
    case 'OnSite':
    case 'Hybrid':
      return false;
    default:
      return job.isRemote ?? null;
  }
}

/** Intervals seen: `1 YEAR` (documented), `1 HOUR` (in live answers); a day, week and month read alike. Others are left to the text. */
const INTERVALS = new Map<string, StatedPeriod>([
  ['1 YEAR', 'yearly'],
  ['1 MONTH', 'monthly'],
  ['1 WEEK', 'weekly'],
  ['1 DAY', 'daily'],
  ['1 HOUR', 'hourly'],
]);

/**
 * The salary of the posting's one pay tier. Several tiers (one per region) are summed up by the
 * board in `summaryComponents`, the range from the lowest tier's bottom to the highest's top, and
 * in the summary line it shows ("$151K – $231K • Multiple Ranges"): that range is the job's.
 */
function salaryOf(compensation: AshbyJob['compensation']): Budget | null {
  const tiers = compensation?.compensationTiers ?? [];
  const components = tiers.length === 1 ? (tiers[0].components ?? []) : (compensation?.summaryComponents ?? []);
  for (const component of components) {
    const period = component.interval ? INTERVALS.get(component.interval.trim().toUpperCase()) : undefined;
    if (component.compensationType !== 'Salary' || !period) continue;
    const salary = statedPay({ min: component.minValue, max: component.maxValue, currency: component.currencyCode, period });
    if (salary) return salary;
  }
  const summary = compensation?.compensationTierSummary;
  return summary ? parsePayText(summary.split('•')[0], { within: 'field' }) : null;
}
