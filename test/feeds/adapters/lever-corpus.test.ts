import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLeverPostings } from '../../../lib/feeds/adapters/lever-adapter';

/**
 * Real Lever answers (corpus/lever, each with its provenance): what a posting states about its date,
 * place and way of working is what Scout's posting carries. Real answers spell on-site work `onsite`,
 * which the documentation-based fixtures did not.
 */
const folder = new URL('./corpus/lever/', import.meta.url);
const files = readdirSync(folder).filter((name) => name.endsWith('.json'));

type RawJob = {
  id: string;
  createdAt?: number;
  workplaceType?: string;
  categories?: { location?: string; allLocations?: string[] };
};

const REMOTE_OF: Record<string, boolean> = { remote: true, onsite: false, 'on-site': false, hybrid: false };

describe('lever: real answers keep what each posting states', () => {
  it('finds the corpus', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files)('%s: date, place and remote, every one stated', (file) => {
    const text = readFileSync(new URL(file, folder), 'utf8');
    const jobs = JSON.parse(text) as RawJob[];
    const postings = new Map(parseLeverPostings('lv', text, { company: null }).map((posting) => [posting.guid, posting]));
    expect(postings.size).toBe(jobs.length);
    for (const job of jobs) {
      const posting = postings.get(job.id);
      const where = `${file} ${job.id}`;
      if (job.createdAt !== undefined) expect(posting?.publishedAt?.getTime(), `${where}: date`).toBe(job.createdAt);
      const place = job.categories?.allLocations?.length ? job.categories.allLocations.join('; ') : job.categories?.location;
      if (place) expect(posting?.location, `${where}: place`).toBe(place.replace(/\s+/g, ' ').trim());
      const remote = job.workplaceType ? REMOTE_OF[job.workplaceType.toLowerCase()] : undefined;
      if (remote !== undefined) expect(posting?.remote, `${where}: remote (${job.workplaceType})`).toBe(remote);
    }
  });

  it('reads the real `onsite` as not remote', () => {
    const text = readFileSync(new URL('spotify.json', folder), 'utf8');
    const onsite = (JSON.parse(text) as RawJob[]).filter((job) => job.workplaceType === 'onsite');
    expect(onsite.length).toBeGreaterThan(0);
    const postings = parseLeverPostings('lv', text, { company: null });
    for (const job of onsite) expect(postings.find((posting) => posting.guid === job.id)?.remote).toBe(false);
  });
});
