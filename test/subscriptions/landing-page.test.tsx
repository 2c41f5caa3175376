import { renderToStaticMarkup } from 'react-dom/server';
import type { Firestore } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import type { StoredPosting } from '../../lib/feeds/postings-collection';
import { parseSourceList } from '../../lib/feeds/source-list';
import { sourceNamesForVisitors } from '../../lib/feeds/sources-read';
import { landingFacts } from '../../lib/subscriptions/landing-facts';
import { pickSamplePosting, SampleCard, sampleKeyword } from '../../lib/subscriptions/landing-sample';

/**
 * The landing page says what this deployment covers: the boards it reads by their own names, and
 * one real posting as the emails' card shows it. A store that cannot answer leaves the page whole.
 */
const NOW = new Date('2026-12-06T09:00:00Z');
const sources = parseSourceList({
  FEED_URLS: 'https://weworkremotely.com/remote-jobs.rss,http://127.0.0.1:4010/jobs.xml,local-board=http://127.0.0.1:4011/jobs.xml',
  SOURCES: JSON.stringify([
    { kind: 'upwork', id: 'upwork-react', params: { query: 'react', clientId: 'id', clientSecret: 'secret', refreshToken: 'token' } },
    { kind: 'hn-whoishiring', id: 'hn' },
    { kind: 'remoteok', id: 'remoteok' },
    { kind: 'greenhouse', id: 'gh-acme', params: { board: 'acme' } },
  ]),
});

let n = 0;
const stored = (fields: Partial<StoredPosting>): StoredPosting => ({
  id: `src_${++n}`,
  source: 'src',
  guid: null,
  title: 'Untitled',
  url: null,
  description: '',
  budget: null,
  skills: [],
  publishedAt: null,
  matchState: 'matched',
  runId: 'run',
  fetchedAt: NOW,
  expireAt: NOW,
  ...fields,
});

describe('the sources a visitor is told about', () => {
  it('each board by its own name, each feed by its site, in the order configured; a bare IP with a derived id is left out, a named one keeps its name', () => {
    expect(sourceNamesForVisitors(sources)).toEqual([
      'weworkremotely.com',
      'local-board',
      'Upwork',
      'Hacker News · Who is hiring?',
      'Remote OK',
      'Greenhouse · acme',
    ]);
  });

  it('the name its postings’ cards carry comes first: a feed’s own title, read lately', () => {
    const derivedId = sources[1].id;
    const seen = [
      { source: sources[0].id, label: 'We Work Remotely' },
      { source: derivedId, label: 'Gigboard' },
    ];
    expect(sourceNamesForVisitors(sources, seen).slice(0, 3)).toEqual(['We Work Remotely', 'Gigboard', 'local-board']);
  });
});

describe('the sample card', () => {
  it('is the newest posting with the most a card can show', () => {
    const bare = stored({ title: 'Newest, bare' });
    const full = stored({
      title: 'Senior Svelte Engineer',
      url: 'https://jobs.example.com/1',
      budget: { amount: 6000, currency: 'USD', kind: 'fixed' },
      company: 'Northwind',
      description: 'Rebuild our booking flow in Svelte and TypeScript. '.repeat(4),
    });
    const alsoFull = { ...full, id: 'src_older', title: 'Older, as full' };
    expect(pickSamplePosting([bare, full, alsoFull])).toBe(full);
    expect(pickSamplePosting([])).toBeNull();
  });

  it('says why, as every card does: a skill its text names, else any skill, else its title’s longest word', () => {
    expect(sampleKeyword(stored({ title: 'Engineer', skills: ['cobol', 'svelte'], description: 'Svelte all day' }))).toBe('svelte');
    expect(sampleKeyword(stored({ title: 'Engineer', skills: ['cobol', 'fortran'] }))).toBe('cobol');
    expect(sampleKeyword(stored({ title: 'Kubernetes platform engineer', skills: [] }))).toBe('kubernetes');
    expect(sampleKeyword(stored({ title: 'A 2026 job', skills: [] }))).toBeNull();
  });

  it('is the emails’ own card, escaped, with "View posting" and no "Not a fit" (nobody has subscribed)', () => {
    const html = renderToStaticMarkup(
      <SampleCard
        posting={stored({ title: 'Svelte <script>alert(1)</script> dev', url: 'https://jobs.example.com/2', skills: ['svelte'] })}
        now={NOW}
      />,
    );
    expect(html).toContain('View posting');
    expect(html).not.toContain('Not a fit');
    expect(html).not.toContain('<script>');
    expect(html).toContain('Why: “svelte” in the title');
  });
});

describe('landingFacts', () => {
  it('a store that fails or is slow leaves the configured names and no sample, within the budget', async () => {
    const failing = {
      collection: () => {
        throw new Error('store down');
      },
    } as unknown as Firestore;
    expect(await landingFacts({ db: failing, sources, now: NOW })).toEqual({ sources: sourceNamesForVisitors(sources), sample: null });
    const hanging = {
      collection: () => ({ doc: () => ({ withConverter: () => hangingRef }), withConverter: () => hangingQuery }),
    } as unknown as Firestore;
    const hangingRef = { get: () => new Promise(() => {}), withConverter: () => hangingRef };
    const hangingQuery = {
      where: () => hangingQuery,
      orderBy: () => hangingQuery,
      limit: () => hangingQuery,
      get: () => new Promise(() => {}),
    };
    const started = Date.now();
    expect(await landingFacts({ db: hanging, sources, now: NOW, budgetMs: 50 })).toEqual({
      sources: sourceNamesForVisitors(sources),
      sample: null,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
