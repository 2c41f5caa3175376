import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshFeeds } from '../../../lib/feeds/refresh-feeds';
import { parseSourceList } from '../../../lib/feeds/source-list';
import { hnWhoIsHiringSample } from '../../../scripts/sample-feed/kinds/hn-whoishiring';
import { postingsAbout, rssFeed } from '../../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../../support/harness';
import { describeHostileAnswers, HUGE_STRING, SCRIPT_TITLE } from '../../support/hostile-sources';
import { expectSampleKindAlert } from './sample-kind-cycle';

const NOW = new Date('2026-11-30T06:00:00Z');
const THREAD = 50_100_000;
const AT = NOW.getTime() / 1000 - 3_600;
const hit = (objectID: number, title: string) => ({ objectID: String(objectID), title, author: 'whoishiring', created_at_i: AT - 86_400 });
const search = (hits: unknown[]) => JSON.stringify({ hits, nbHits: hits.length, page: 0, nbPages: 1, hitsPerPage: 20 });
const thread = (children: unknown[]) =>
  JSON.stringify({ id: THREAD, type: 'story', author: 'whoishiring', title: 'Ask HN: Who is hiring? (November 2026)', children });
const comment = (fields: Record<string, unknown>) => ({
  id: 50_100_001,
  created_at_i: AT,
  created_at: new Date(AT * 1000).toISOString(),
  type: 'comment',
  author: 'acme',
  text: `<p>Acme | React Developer | Berlin, Germany | REMOTE (EU) | €80k–€95k</p><p>${'Build things in React. '.repeat(20)}</p>`,
  parent_id: THREAD,
  story_id: THREAD,
  children: [],
  ...fields,
});

describeHostileAnswers({
  kind: 'hn-whoishiring',
  entry: (origin) => ({ kind: 'hn-whoishiring', id: 'hostile', params: { baseUrl: origin } }),
  path: `/api/v1/items/${THREAD}`,
  serveValid: (server) =>
    server.setFeed('/api/v1/search_by_date', {
      body: search([hit(THREAD, 'Ask HN: Who is hiring? (November 2026)')]),
      contentType: 'application/json; charset=utf-8',
    }),
  bodies: {
    valid: thread([comment({})]),
    // items/:id's comment keys, each of the wrong type.
    wrongTypes: thread([
      { id: 'first', created_at_i: 'today', created_at: 5, type: 6, author: 7, text: 8, parent_id: 'x', story_id: 'y', children: 'none' },
    ]),
    missingIds: thread([comment({ id: undefined }), comment({ id: undefined, author: 'other' })]),
    hugeStrings: thread([comment({ id: 50_100_002, text: `<p>${HUGE_STRING}</p><p>${HUGE_STRING}</p>` })]),
    scriptTitles: thread([comment({ id: 50_100_003, text: `<p>${SCRIPT_TITLE}</p><p>We build robots.</p>` })]),
  },
});

describe('hn-whoishiring without a thread', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  it('no "Who is hiring?" thread this month or last is a recorded error, not a crash, and the other sources still run', async () => {
    h.feeds.setFeed('/api/v1/search_by_date', {
      body: search([hit(1, 'Ask HN: Who wants to be hired? (November 2026)'), hit(2, 'Ask HN: Who is hiring? (September 2026)')]),
      contentType: 'application/json',
    });
    h.feeds.setFeed('/good.xml', { body: rssFeed(postingsAbout('react', 1, { at: NOW })), contentType: 'application/rss+xml' });
    const sources = parseSourceList({
      ...h.config,
      FEED_URLS: `good=${h.feeds.url}/good.xml`,
      SOURCES: JSON.stringify([{ kind: 'hn-whoishiring', id: 'hn', params: { baseUrl: h.feeds.url } }]),
    });
    const result = await refreshFeeds(h.deps, { sources, now: NOW, runId: 'run-no-thread', config: h.config, dryRun: false });
    expect(result.feeds.find((f) => f.source === 'hn')).toMatchObject({ status: 'error', error: 'no Who is hiring thread found' });
    const state = (await h.db.collection('feeds').doc('hn').get()).data();
    expect(state).toMatchObject({ lastError: 'no Who is hiring thread found', consecutiveFailures: 1 });
    // A thread not out yet is a wait: it never counts toward the parse failures that disable a source.
    expect(state?.parseStreak ?? 0).toBe(0);
    expect((await h.db.collection('jobs').where('source', '==', 'good').get()).size).toBe(1);
  });
});

describe('hn-whoishiring in the cycle', () => {
  it('the sample thread reaches a subscriber as an alert, company and location read off the first line', async () => {
    const { job, mail } = await expectSampleKindAlert(hnWhoIsHiringSample, { keyword: 'backend', title: 'Senior Backend Engineer' });
    expect(job).toMatchObject({ company: 'Acme Robotics', location: 'Berlin, Germany · REMOTE (EU)', remote: true });
    expect(mail.text).toContain('https://news.ycombinator.com/item?id=49811377');
  });
});
