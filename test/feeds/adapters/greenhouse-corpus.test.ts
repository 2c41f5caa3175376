import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Posting } from '../../../lib/feeds/posting';
import { startFeedServer, type FeedServer } from '../../../scripts/sample-feed/server';
import { greenhouseAdapter, parseGreenhouseJobs } from '../../../lib/feeds/adapters/greenhouse-adapter';
import { readOverLoopback } from './read-board';

/**
 * Real Greenhouse answers (corpus/greenhouse, each with its provenance): what a job states about its
 * date, employer, place and remote work is what its posting carries. The fixtures written from the
 * documentation had neither `first_published` nor `company_name`; every real answer has both.
 */
const folder = new URL('./corpus/greenhouse/', import.meta.url);
const files = readdirSync(folder).filter((name) => name.endsWith('.json'));

type RawJob = {
  id: number;
  first_published?: string | null;
  updated_at?: string | null;
  company_name?: string | null;
  location?: { name?: string | null } | null;
  metadata?: { name?: string; value?: unknown }[] | null;
};

/** What a raw job states, field by field; undefined where it states nothing. */
function stated(job: RawJob) {
  const workplace = (job.metadata ?? []).find((field) => /^(location|workplace) type$/i.test(field.name?.trim() ?? ''));
  const value = typeof workplace?.value === 'string' ? workplace.value.trim() : '';
  return {
    publishedAt: job.first_published ? Date.parse(job.first_published) : undefined,
    company: job.company_name?.trim() || undefined,
    // Postings keep text with its runs of white space collapsed.
    location: job.location?.name?.replace(/\s+/g, ' ').trim() || undefined,
    remote: /^remote$/i.test(value) ? true : /^on[- ]?site$/i.test(value) ? false : undefined,
  };
}

function carried(posting: Posting | undefined) {
  return {
    publishedAt: posting?.publishedAt?.getTime(),
    company: posting?.company ?? undefined,
    location: posting?.location ?? undefined,
    remote: posting?.remote ?? undefined,
  };
}

describe('greenhouse: real answers keep what each job states', () => {
  it('finds the corpus', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files)('%s: first publication date, employer, place and remote, every one stated', (file) => {
    const text = readFileSync(new URL(file, folder), 'utf8');
    const jobs = (JSON.parse(text) as { jobs: RawJob[] }).jobs;
    const postings = new Map(parseGreenhouseJobs('gh', text, { company: null }).map((posting) => [posting.guid, posting]));
    expect(postings.size).toBe(jobs.length);
    for (const job of jobs) {
      const want = stated(job);
      const got = carried(postings.get(String(job.id)));
      for (const field of Object.keys(want) as (keyof typeof want)[]) {
        if (want[field] !== undefined) expect(got[field], `${file} job ${job.id}: ${field}`).toBe(want[field]);
      }
    }
  });

  it('dates a job by its first publication, not by the bulk edit that touched every job at once', () => {
    const text = readFileSync(new URL('anthropic-list.json', folder), 'utf8');
    const jobs = (JSON.parse(text) as { jobs: RawJob[] }).jobs;
    const edits = new Set(jobs.map((job) => job.updated_at));
    const firsts = new Set(jobs.map((job) => job.first_published));
    // The real answer has far fewer distinct updated_at instants than first publications.
    expect(firsts.size).toBeGreaterThan(edits.size);
    const published = new Set(parseGreenhouseJobs('gh', text, { company: null }).map((posting) => posting.publishedAt?.getTime()));
    expect(published.size).toBe(firsts.size);
  });
});

describe('greenhouse: a real list names its employer, so the board is not asked again', () => {
  let server: FeedServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('one request per run, each posting under the company_name of its job', async () => {
    server = await startFeedServer();
    const body = readFileSync(new URL('anthropic-content.json', folder), 'utf8');
    server.setFeed('/v1/boards/anthropic/jobs', { body, contentType: 'application/json' });
    const read = await readOverLoopback(greenhouseAdapter, { id: 'gh', params: { baseUrl: server.url, board: 'anthropic' } });
    expect(read.status === 'ok' && read.postings.map((p) => p.company)).toEqual(['Anthropic', 'Anthropic', 'Anthropic', 'Anthropic']);
    expect(server.requests().map((r) => r.path)).toEqual(['/v1/boards/anthropic/jobs']);
  });
});
