import { z } from 'zod';
import { describeIssues, type Config } from '../runtime/config';
import { parseFeedUrls } from './feed-source';
import type { ConfiguredSource } from './source-adapter';
import { SOURCE_ADAPTERS } from './source-kinds';

/** One request of a source, redirects included, unless its entry sets `timeoutMs`: a board slower than this is down for this run. */
export const FEED_TIMEOUT_MS = 10_000;
/** One answer of a source, counted as it arrives, unless its entry sets `maxBytes`: room for a large board, a stop for a runaway answer. */
export const FEED_MAX_BYTES = 5_000_000;

const SOURCE_ID = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

const entrySchema = z
  .object({
    kind: z.string({ error: 'is required' }),
    id: z.string({ error: 'is required' }).regex(SOURCE_ID, 'must be 1-64 characters of a-z, 0-9 and - (no leading or trailing -)'),
    params: z.record(z.string(), z.unknown()).default({}),
    timeoutMs: z.int().min(100).max(60_000).optional(),
    maxBytes: z.int().min(1_000).max(50_000_000).optional(),
    minIntervalMinutes: z
      .int()
      .min(0)
      .max(7 * 24 * 60)
      .optional(),
  })
  .strict();

export class SourceListError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid source list:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SourceListError';
  }
}

const parsed = new WeakMap<Config, ConfiguredSource[]>();

/**
 * The sources of this deployment, in one list: every SOURCES entry (a JSON array) and every
 * FEED_URLS entry as a `feed` source, each entry's params checked by its kind's own schema and
 * its limits defaulted from FEED_TIMEOUT_MS / FEED_MAX_BYTES and the kind's terms, its secrets held
 * as SourceSecret (lib/feeds/source-secret.ts) so no display shows them. Throws
 * SourceListError naming each bad entry by position and id; parsed once per config.
 */
export function configuredSources(config: Config): ConfiguredSource[] {
  let sources = parsed.get(config);
  if (!sources) {
    sources = parseSourceList(config);
    parsed.set(config, sources);
  }
  return sources;
}

export function parseSourceList(config: Pick<Config, 'FEED_URLS' | 'SOURCES' | 'tuning'>): ConfiguredSource[] {
  const problems: string[] = [];
  const sources: ConfiguredSource[] = [];
  const defaults = (entry: { timeoutMs?: number; maxBytes?: number; minIntervalMinutes?: number }, minInterval: number) => ({
    timeoutMs: entry.timeoutMs ?? config.tuning?.FEED_TIMEOUT_MS ?? FEED_TIMEOUT_MS,
    maxBytes: entry.maxBytes ?? config.tuning?.FEED_MAX_BYTES ?? FEED_MAX_BYTES,
    minIntervalMinutes: entry.minIntervalMinutes ?? minInterval,
  });

  if (config.FEED_URLS) {
    try {
      for (const feed of parseFeedUrls(config.FEED_URLS))
        sources.push({ kind: 'feed', id: feed.source, params: { url: feed.url }, ...defaults({}, 0) });
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  for (const [i, raw] of readEntries(config.SOURCES, problems).entries()) {
    const where = `SOURCES[${i}]${typeof (raw as { id?: unknown })?.id === 'string' ? ` ("${(raw as { id: string }).id}")` : ''}`;
    const entry = entrySchema.safeParse(raw);
    if (!entry.success) {
      problems.push(...describeIssues(entry.error.issues).map((issue) => `${where} ${issue}`));
      continue;
    }
    const adapter = SOURCE_ADAPTERS[entry.data.kind];
    if (!adapter) {
      problems.push(`${where} kind must be one of ${Object.keys(SOURCE_ADAPTERS).join(', ')}`);
      continue;
    }
    const params = adapter.params.safeParse(entry.data.params);
    if (!params.success) {
      problems.push(...describeIssues(params.error.issues).map((issue) => `${where} params.${issue}`));
      continue;
    }
    sources.push({
      kind: adapter.kind,
      id: entry.data.id,
      params: params.data as Record<string, unknown>,
      ...defaults(entry.data, adapter.minIntervalMinutes),
    });
  }
  const seen = new Set<string>();
  for (const source of sources) {
    if (seen.has(source.id))
      problems.push(`source id "${source.id}" is used twice (ids prefix their postings' ids, so each must be unique)`);
    seen.add(source.id);
  }
  if (sources.length === 0 && problems.length === 0) problems.push('FEED_URLS or SOURCES must name at least one source');
  if (problems.length > 0) throw new SourceListError(problems);
  return sources;
}

function readEntries(text: string | undefined, problems: string[]): unknown[] {
  if (!text) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    problems.push('SOURCES must be a JSON array of sources (it is not valid JSON)');
    return [];
  }
  if (!Array.isArray(value)) {
    problems.push('SOURCES must be a JSON array of sources');
    return [];
  }
  return value;
}
