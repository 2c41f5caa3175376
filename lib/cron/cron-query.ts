import { z } from 'zod';
import { MAX_SHARDS, type Shard } from '../runtime/shard';

const flag = z.enum(['1', '0', 'true', 'false'], { error: 'must be 1, 0, true or false' }).transform((v) => v === '1' || v === 'true');

const shardNumber = (min: number) =>
  z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(MAX_SHARDS, `must be at most ${MAX_SHARDS}`));

/** The endpoint's query string: anything unknown or malformed is a 400, never a silent default. */
export const cronQuerySchema = z
  .strictObject(
    {
      dryRun: flag.optional(),
      now: z.iso
        .datetime({ offset: true, error: 'must be an ISO 8601 timestamp, e.g. 2026-11-30T08:15:00Z' })
        .transform((v) => new Date(v))
        .optional(),
      key: z.string().optional(),
      shard: shardNumber(0).optional(),
      shards: shardNumber(1).optional(),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown parameter(s): ${issue.keys.join(', ')}` : undefined) },
  )
  .superRefine((q, ctx) => {
    if ((q.shard === undefined) !== (q.shards === undefined))
      ctx.addIssue({ code: 'custom', path: [q.shard === undefined ? 'shard' : 'shards'], message: 'shard and shards go together' });
    else if (q.shard !== undefined && q.shards !== undefined && q.shard >= q.shards)
      ctx.addIssue({ code: 'custom', path: ['shard'], message: `must be below shards (0 to ${q.shards - 1})` });
  })
  .transform(({ shard, shards, ...rest }) => ({
    ...rest,
    shard: shard !== undefined && shards !== undefined ? ({ index: shard, count: shards } satisfies Shard) : undefined,
  }));

export type CronQuery = z.output<typeof cronQuerySchema>;

export function parseCronQuery(url: string): { ok: true; query: CronQuery } | { ok: false; errors: Record<string, string> } {
  const params = new URL(url).searchParams;
  // No prototype: `__proto__` and `constructor` are parameter names like any other (unknown ones).
  const raw = Object.create(null) as Record<string, string>;
  for (const [name, value] of params) {
    if (Object.hasOwn(raw, name)) return { ok: false, errors: { [name]: 'given more than once' } };
    raw[name] = value;
  }
  const parsed = cronQuerySchema.safeParse(raw);
  if (parsed.success) return { ok: true, query: parsed.data };
  return { ok: false, errors: Object.fromEntries(parsed.error.issues.map((i) => [i.path.join('.') || 'query', i.message])) };
}

/** Who called, for the run record: platforms that say so in their User-Agent. */
export function detectTrigger(request: Request): string {
  const agent = request.headers.get('user-agent') ?? '';
  if (/vercel-cron/i.test(agent)) return 'vercel-cron';
  if (/cron-job\.org/i.test(agent)) return 'cron-job.org';
  if (/n8n/i.test(agent)) return 'n8n';
  if (request.headers.get('x-github-run-id') || /github/i.test(agent)) return 'github-actions';
  if (/^curl\//i.test(agent)) return 'curl';
  return 'http';
}
