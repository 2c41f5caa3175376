import { z } from 'zod';
import { FeedParseError } from '../feed-errors';
import { htmlToPlainText } from '../plain-text';
import { statedPay } from '../../pay/parse-pay';
import type { Budget } from '../posting';
import type { SourceAdapter } from '../source-adapter';
import { buildPostings, parseJsonBody, type RawJob } from './build-posting';
import { optionalNumber, optionalText, parseJobs, textList } from './job-fields';
import { repairMojibake } from './repair-mojibake';

/** params of a `remoteok` source: only `baseUrl`, https://remoteok.com unless a local stack stands in for it. */
export const remoteOkParams = z
  .object({ baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://remoteok.com') })
  .strict();

type RemoteOkParams = z.output<typeof remoteOkParams>;

const jobSchema = z.object({
  // Observed as a string of digits; a number is the same id.
  id: z.union([z.string().regex(/^\d+$/), z.int().nonnegative()]),
  position: z.string(),
  url: optionalText,
  company: optionalText,
  location: optionalText,
  description: optionalText,
  tags: textList,
  epoch: optionalNumber,
  date: optionalText,
  salary_min: optionalNumber,
  salary_max: optionalNumber,
});

// Remote OK appends this to descriptions so that applicants prove they read them; it is noise in an email.
const MENTION_THE_WORD = /Please mention the word[\s\S]*?(?:see they(?:'|’|&#39;|&#8217;)re human\.?|$)/i;
const ENCODED_ENTITY = /&amp;(#\d+|#x[\da-f]+|[a-z][a-z\d]*);/gi;
const LITERAL_LINE_BREAK = /\\r\\n|\\n|\\r/g;
const HAS_ENTITY = /&(?:#\d+|#x[\da-f]+|[a-z][a-z\d]*);/i;

/**
 * Remote OK's public feed: one JSON array of the ~100 newest remote jobs. The array itself is the
 * documentation: its first element is the terms (link back to the job's Remote OK page, with follow,
 * and name Remote OK as the source), skipped wherever it appears; every other element must be a job.
 * No rate limit is published (the interval is 0: every run), nor conditional requests (sent anyway).
 */
export const remoteOkAdapter: SourceAdapter<RemoteOkParams> = {
  kind: 'remoteok',
  documentation: 'https://remoteok.com/api (element 0: API Terms of Service) and https://remoteok.com/legal',
  params: remoteOkParams,
  redirects: 'same-host',
  minIntervalMinutes: 0,
  label: () => 'Remote OK',
  attribution: () => ({ text: 'Jobs from Remote OK', url: 'https://remoteok.com' }),
  async read({ source, http, validators }) {
    const answer = await http.request(new URL('/api', source.params.baseUrl).href, {
      etag: validators?.etag,
      lastModified: validators?.lastModified,
    });
    if (answer.status === 'not-modified') return answer;
    const body = parseJsonBody(source.id, answer.text);
    if (!Array.isArray(body)) throw new FeedParseError(source.id, 'Remote OK answer: expected an array of jobs');
    const raws = parseJobs(
      source.id,
      body.filter((entry) => !isLegalNotice(entry)),
      jobSchema,
    ).map((job): RawJob => ({
      providerId: String(job.id),
      title: decodeText(job.position),
      description: job.description ? { value: describe(job.description), html: true } : null,
      // The link-back the terms require: the job's page on Remote OK (the URL parser lower-cases "remoteOK.com").
      url: job.url ?? null,
      company: job.company ? decodeText(job.company) : null,
      location: job.location ? decodeText(job.location).replace(/[\s,]+$/, '') || null : null,
      remote: true,
      budget: salary(job.salary_min, job.salary_max),
      publishedAt: job.epoch ? job.epoch * 1000 : job.date,
      tags: job.tags,
    }));
    return {
      status: 'ok',
      postings: buildPostings(source.id, raws),
      validators: { etag: answer.etag, lastModified: answer.lastModified },
    };
  },
};

/** Element 0 as observed: `{ last_updated, legal }`, no id. Recognised by its shape, not its position. */
function isLegalNotice(entry: unknown): boolean {
  return typeof entry === 'object' && entry !== null && 'legal' in entry && !('id' in entry);
}

/**
 * salary_min / salary_max: 0 means not given. No currency or period is published; USD yearly is
 * inferred from the site, and a top under 1,000 can only be an hourly rate (an inference too).
 */
function salary(min: number | null | undefined, max: number | null | undefined): Budget | null {
  const top = Math.max(min ?? 0, max ?? 0);
  return statedPay({ min, max, currency: null, defaultCurrency: 'USD', period: top < 1_000 ? 'hourly' : 'yearly' });
}

/**
 * The description as Remote OK should have sent it: its line breaks arrive as the two characters
 * `\n` (68 of 97 jobs in one real answer), its entities escaped twice, its text misread as
 * Windows-1252 once or twice, and the applicants' proof sentence appended.
 */
function describe(description: string): string {
  const text = description.replace(LITERAL_LINE_BREAK, '\n');
  return repairMojibake(text.replace(ENCODED_ENTITY, '&$1;').replace(MENTION_THE_WORD, ''));
}

/** Plain fields arrive with mojibake and, at times, HTML entities: both undone once, markup kept as literal text. */
function decodeText(value: string): string {
  const repaired = repairMojibake(value);
  return HAS_ENTITY.test(repaired) ? htmlToPlainText(repaired.replace(/</g, '&lt;'), 10_000) : repaired;
}
