import { z } from 'zod';
import { FeedParseError } from '../feed-errors';

// One rule for what a bad answer is, for every API kind: the top-level shape wrong, or any job
// without a usable id or title, refuses the whole answer — a source that sends a job without its
// id is not sending what its docs describe, and half an answer would look like jobs closing. A
// field the docs leave optional, or that a provider may leave out, reads as null (or empty) when
// it has the wrong type: one odd field never costs a job. The strict half (id, title) is each
// adapter's own schema.

/** Any optional field: null when absent or of the wrong type. */
export function lenient<T extends z.ZodType>(schema: T) {
  return schema.nullish().catch(null);
}
export const optionalText = z.string().nullish().catch(null);
// z.number() refuses Infinity and NaN by itself since zod 4.
export const optionalNumber = z.number().nullish().catch(null);
/** A list of strings; anything in it that is not a string is dropped, a list that is not one reads as empty. */
export const textList = z
  .array(z.unknown())
  .catch([])
  .transform((items) => items.filter((item): item is string => typeof item === 'string'));

/**
 * Every job of an answer checked against `schema`; the first job that fails refuses the whole
 * answer, with a message naming the job's position and field (never the value it held).
 */
export function parseJobs<T>(source: string, jobs: unknown[], schema: z.ZodType<T>, where = 'job'): T[] {
  return jobs.map((job, index) => {
    const parsed = schema.safeParse(job);
    if (parsed.success) return parsed.data;
    const [issue] = parsed.error.issues;
    const field = issue.path.length > 0 ? issue.path.join('.') : 'the entry';
    throw new FeedParseError(source, `${where} ${index}: ${field} ${describeIssue(issue)}`);
  });
}

/** A top-level shape check with the same kind of message: which key, what was expected. */
export function parseAnswer<T>(source: string, answer: unknown, schema: z.ZodType<T>, what: string): T {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const where = issue.path.length > 0 ? `${what}: ${issue.path.join('.')}` : what;
  throw new FeedParseError(source, `${where} ${describeIssue(issue)}`);
}

const EXPECTED: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  array: 'an array',
  object: 'an object',
  boolean: 'a boolean',
};

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `is missing or not ${EXPECTED[issue.expected] ?? issue.expected}`;
  if (issue.code === 'invalid_union') return 'is missing or of the wrong type';
  return 'is invalid';
}
