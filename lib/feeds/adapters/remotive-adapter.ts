import { z } from 'zod';
import { parsePayText } from '../../pay/parse-pay';
import type { SourceAdapter } from '../source-adapter';
import { buildPostings, parseJsonBody, type RawJob } from './build-posting';
import { optionalText, parseAnswer, parseJobs, textList } from './job-fields';

/**
 * params of a `remotive` source:
 * - `category`: a category slug or name from https://remotive.com/api/remote-jobs/categories ("software-dev");
 * - `search`: words matched against job titles and descriptions;
 * - `limit`: at most this many jobs (the newest first);
 * - `baseUrl`: the API's origin, https://remotive.com unless a local stack stands in for it.
 */
export const remotiveParams = z
  .object({
    baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://remotive.com'),
    category: z.string().trim().min(1).max(100).optional(),
    search: z.string().trim().min(1).max(200).optional(),
    limit: z.int().min(1).max(1_000).optional(),
  })
  .strict();

type RemotiveParams = z.output<typeof remotiveParams>;

// The README's Response example: one object whose `jobs` is the list. Its notices ("0-legal-notice",
// "00-warning") and counts are other keys, read by no one here, so a new notice never breaks a run.
const answerSchema = z.object({ jobs: z.array(z.unknown()) });
const jobSchema = z.object({
  id: z.int().positive(),
  title: z.string(),
  url: optionalText,
  company_name: optionalText,
  category: optionalText,
  tags: textList,
  job_type: optionalText,
  publication_date: optionalText,
  candidate_required_location: optionalText,
  salary: optionalText,
  description: optionalText,
});

/**
 * Remotive's public API: remote jobs only, newest first. Its terms: at most 4 requests a day
 * (hence a 6-hour interval), and every listing links back to its Remotive page and names
 * Remotive as the source. It documents no conditional requests; the validators are sent anyway.
 */
export const remotiveAdapter: SourceAdapter<RemotiveParams> = {
  kind: 'remotive',
  documentation: 'https://github.com/remotive-com/remote-jobs-api (README: Response, Terms of Services, Request Rate Limiting)',
  params: remotiveParams,
  redirects: 'same-host',
  minIntervalMinutes: 360,
  label: (source) => ['Remotive', source.params.category, source.params.search].filter(Boolean).join(' · '),
  siteName: () => 'Remotive',
  attribution: () => ({ text: 'Jobs from Remotive', url: 'https://remotive.com' }),
  async read({ source, http, validators }) {
    const answer = await http.request(remotiveJobsUrl(source.params), { etag: validators?.etag, lastModified: validators?.lastModified });
    if (answer.status === 'not-modified') return answer;
    const { jobs } = parseAnswer(source.id, parseJsonBody(source.id, answer.text), answerSchema, 'Remotive answer');
    const raws = parseJobs(source.id, jobs, jobSchema).map((job): RawJob => ({
      providerId: String(job.id),
      title: job.title,
      description: job.description ? { value: job.description, html: true } : null,
      // The terms require this exact link (the job's page on Remotive), never an apply link.
      url: job.url ?? null,
      company: job.company_name,
      location: job.candidate_required_location,
      remote: true,
      // "usually a yearly salary range, in USD": USD when the text names no currency.
      budget: job.salary ? parsePayText(job.salary, { within: 'field', defaultCurrency: 'USD' }) : null,
      publishedAt: publicationDate(job.publication_date),
      tags: [...job.tags, job.category, job.job_type?.replace(/_/g, '-')].filter((tag): tag is string => !!tag),
    }));
    return {
      status: 'ok',
      postings: buildPostings(source.id, raws),
      validators: { etag: answer.etag, lastModified: answer.lastModified },
    };
  },
};

/** The documented query: category, search and limit, each only when configured. */
export function remotiveJobsUrl(params: RemotiveParams): string {
  const url = new URL('/api/remote-jobs', params.baseUrl);
  if (params.category) url.searchParams.set('category', params.category);
  if (params.search) url.searchParams.set('search', params.search);
  if (params.limit) url.searchParams.set('limit', String(params.limit));
  return url.href;
}

// "2020-02-15T10:23:26": no offset. The docs do not say which zone; read as UTC (an assumption),
// never as the server's local time, which is what Date would do with it.
function publicationDate(value: string | null | undefined): string | null {
  if (!value) return null;
  return /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
}
