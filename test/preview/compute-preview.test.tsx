import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { readFeed } from '../../lib/feeds/parse-feed';
import type { StoredPosting } from '../../lib/feeds/postings-collection';
import { computePreview } from '../../lib/preview/compute-preview';
import { parsePreview, type PreviewInput } from '../../lib/preview/preview-input';
import { PREVIEW_TOP } from '../../lib/preview/preview';
import { PreviewBody } from '../../lib/preview/preview-panel';
import { readSampleFeed } from '../../scripts/sample-feed/server';

const NOW = new Date('2026-12-03T12:00:00Z');
let n = 0;
const stored = (fields: Partial<StoredPosting> & { hoursAgo: number }): StoredPosting => {
  const { hoursAgo, ...rest } = fields;
  const id = `src_${++n}`;
  return {
    id,
    source: 'src',
    guid: null,
    title: 'Untitled',
    url: `https://jobs.example.com/${id}`,
    description: '',
    budget: null,
    skills: [],
    publishedAt: null,
    matchState: 'matched',
    runId: `run-${hoursAgo}`,
    fetchedAt: new Date(NOW.getTime() - hoursAgo * 3_600_000),
    expireAt: new Date(NOW.getTime() + 30 * 86_400_000),
    ...rest,
  };
};
const profile = (fields: Record<string, unknown>): PreviewInput => {
  const parsed = parsePreview({ mode: 'instant', ...fields });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.fields));
  return parsed.input;
};
const recent = (postings: StoredPosting[]) => ({ postings, read: postings.length, truncated: false });

describe('computePreview: the run’s matching over the window’s postings', () => {
  it('counts every match, lists the best five by score then newest, and leaves out what excludes and the budget floor leave out', () => {
    const postings = [
      stored({ hoursAgo: 1, title: 'React developer', description: 'react and typescript' }),
      stored({ hoursAgo: 2, title: 'Senior React engineer', skills: ['react'] }),
      stored({ hoursAgo: 3, title: 'Vue developer', description: 'also some react' }),
      stored({ hoursAgo: 4, title: 'React on WordPress' }), // excluded
      stored({ hoursAgo: 5, title: 'React app', budget: { amount: 100, currency: 'USD', kind: 'fixed' } }), // under the minimum
      stored({ hoursAgo: 6, title: 'React app, well paid', budget: { amount: 5000, currency: 'USD', kind: 'fixed' } }),
      stored({ hoursAgo: 7, title: 'Go developer' }), // no keyword
      stored({ hoursAgo: 8, title: 'React native', description: 'react' }),
      stored({ hoursAgo: 9, title: 'Another React role' }),
    ];
    const preview = computePreview({
      recent: recent(postings),
      profile: profile({ keywords: 'react', excludes: 'wordpress', minBudget: '1000' }),
      defaultDigestHour: 8,
    });
    expect(preview.matched).toBe(6);
    expect(preview.checked).toBe(9);
    expect(preview.top).toHaveLength(PREVIEW_TOP);
    // The budget-stating one scores highest; equal scores newest first.
    expect(preview.top.map((p) => p.title)).toEqual([
      'React app, well paid',
      'React developer',
      'Senior React engineer',
      'React native',
      'Another React role',
    ]);
    expect(preview.top[0]).toMatchObject({ budget: '$5,000 fixed', source: 'src', url: 'https://jobs.example.com/src_6' });
    expect(preview.top[0].reasons).toContain('“react” in the title');
    // Six matches in six runs: six alerts.
    expect(preview.estimate).toEqual({ mode: 'instant', emailsPerWeek: 6, feedItems: 0 });
  });

  it('a card names where the job was listed, and the estimate follows the cadence chosen', () => {
    const postings = [
      stored({
        hoursAgo: 30,
        title: 'Rust engineer',
        company: 'Acme',
        sightings: [{ source: 'src', label: 'Remote OK', url: null, seenAt: NOW }],
      }),
      stored({ hoursAgo: 2, title: 'Rust tooling' }),
    ];
    const weekly = computePreview({
      recent: recent(postings),
      profile: profile({ keywords: 'rust', mode: 'weekly' }),
      defaultDigestHour: 8,
    });
    expect(weekly.top.find((p) => p.title === 'Rust engineer')).toMatchObject({ source: 'Remote OK', employer: 'Acme' });
    expect(weekly.estimate).toEqual({ mode: 'weekly', emailsPerWeek: 1, feedItems: 0 });
    // Stored Dec 2 06:00 (waits for Dec 2's 08:00 digest) and Dec 3 10:00 (Dec 3's has gone: Dec 4's): two digests.
    const daily = computePreview({ recent: recent(postings), profile: profile({ keywords: 'rust', mode: 'daily' }), defaultDigestHour: 8 });
    expect(daily.estimate.emailsPerWeek).toBe(2);
    const feed = computePreview({ recent: recent(postings), profile: profile({ keywords: 'rust', mode: 'feed' }), defaultDigestHour: 8 });
    expect(feed.estimate).toEqual({ mode: 'feed', emailsPerWeek: 0, feedItems: 2 });
  });

  it('a card shows the excerpt an email would: the passage naming a keyword found only deep in the whole text', () => {
    const story = 'Our company story goes on. '.repeat(200);
    const postings = [
      stored({ hoursAgo: 1, title: 'Platform engineer', description: `${story}Requirements: Terraform and AWS. ${story}` }),
    ];
    const preview = computePreview({ recent: recent(postings), profile: profile({ keywords: 'terraform' }), defaultDigestHour: 8 });
    expect(preview.top[0].excerpt).toMatch(/^… .*Requirements: Terraform and AWS\. .* …$/);
    expect(preview.top[0].excerpt.length).toBeLessThanOrEqual(280);
  });
});

describe('the words a card marks: what its query matched', () => {
  const marksFor = (query: string, posting: Partial<StoredPosting>) =>
    computePreview({ recent: recent([stored({ hoursAgo: 1, ...posting })]), profile: profile({ query }), defaultDigestHour: 8 }).top[0]
      ?.marks;

  it('the terms of the clauses that held: not an OR’s alternative that did not, nor anything left out', () => {
    expect(marksFor('(react OR vue) -php', { title: 'React developer', description: 'no php here, honest' })).toBeUndefined();
    expect(marksFor('(react OR vue) -wordpress', { title: 'React developer', description: 'React and TypeScript' })).toEqual({
      title: ['react'],
      text: ['react'],
    });
  });

  it('a title: term in the title only; company:, remote and pay mark nothing', () => {
    expect(
      marksFor('title:rust company:acme remote:yes rate>=60', {
        title: 'Rust engineer',
        company: 'Acme',
        remote: true,
        description: 'Rust at Acme',
        budget: { amount: 80, currency: 'USD', kind: 'hourly' },
      }),
    ).toEqual({ title: ['rust'], text: [] });
  });

  it('the excerpt centres on the matched words, as an email’s card centres on the keywords', () => {
    const story = 'Our company story goes on. '.repeat(200);
    const postings = [
      stored({ hoursAgo: 1, title: 'Platform engineer', description: `${story}Requirements: Terraform and AWS. ${story}` }),
    ];
    const preview = computePreview({
      recent: recent(postings),
      profile: profile({ query: 'title:platform terraform' }),
      defaultDigestHour: 8,
    });
    expect(preview.top[0].excerpt).toMatch(/^… .*Requirements: Terraform and AWS\. .* …$/);
    expect(preview.top[0].marks).toEqual({ title: ['platform', 'terraform'], text: ['terraform'] });
  });
});

describe('the preview panel: each card as an email would show it', () => {
  it('shows a Gigboard posting without the feed’s noise, and why it matched in words, never a bare score', async () => {
    const [sample] = readFeed(await readSampleFeed(), { source: 'sample', baseUrl: 'http://127.0.0.1:3030/sample.xml' }).postings;
    const posting = stored({
      ...sample,
      hoursAgo: 1,
      // As stored before the feed path learnt its site name: the suffix is still in the title.
      title: `${sample.title} - Gigboard`,
      sightings: [{ source: 'sample', label: 'Gigboard', url: null, seenAt: NOW }],
    });
    const preview = computePreview({ recent: recent([posting]), profile: profile({ keywords: 'next.js' }), defaultDigestHour: 8 });
    const [card] = preview.top;
    expect(card.title).toBe('Next.js 15 developer to build SaaS analytics dashboard');
    expect(card.excerpt).not.toMatch(/Posted On|Category:|click to apply/);
    const html = renderToStaticMarkup(<PreviewBody state={{ kind: 'shown', preview }} />);
    expect(html).toContain('Gigboard · Client in United States · $2,500 fixed');
    expect(html).toContain('Why: “next.js” in the title');
    expect(html).not.toMatch(/score/i);
    expect(html).not.toContain(String(card.score));
  });
});
