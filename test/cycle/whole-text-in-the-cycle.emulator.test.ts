import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capText } from '../../lib/feeds/plain-text';
import { MAX_DESCRIPTION, postingId, type Posting } from '../../lib/feeds/posting';
import { storeNewPostings } from '../../lib/feeds/store-postings';
import { createHarness, type Harness } from '../support/harness';
import { handleCronRequest } from '../../lib/cron/handle-cron-request';
import { cronWithSources } from '../feeds/adapters/board-cycle';

/**
 * Matching reads a posting's whole text: a real Greenhouse answer (corpus/greenhouse/smarterdx.json)
 * whose "Client Support Analyst I" names SQL only after its first 5,000 characters reaches a
 * subscriber with that keyword through the whole cycle, and the email's excerpt shows that passage.
 * A posting stored before, its text cut at 2,000 characters, still matches and renders.
 */
const SMARTERDX = readFileSync(new URL('../feeds/adapters/corpus/greenhouse/smarterdx.json', import.meta.url), 'utf8');
// A day after the board's newest job: both are inside the retention window.
const RUN_AT = '2026-07-28T12:00:00Z';

describe('whole text in the cycle', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => h.close());

  it('a subscriber is emailed a real posting that names their keyword only after its first 5,000 characters', async () => {
    h.feeds.setFeed('/v1/boards/smarterdx/jobs', { body: SMARTERDX, contentType: 'application/json' });
    await h.subscribe({ email: 'ada@example.com', keywords: ['sql'], mode: 'instant' });
    await h.subscribe({ email: 'bob@example.com', keywords: ['cobol'], mode: 'instant' });

    const { status, body } = await cronWithSources(
      h,
      [{ kind: 'greenhouse', id: 'smarterdx', params: { baseUrl: h.feeds.url, board: 'smarterdx', company: 'SmarterDx' } }],
      RUN_AT,
    );
    expect(status).toBe(200);
    expect(body.failures).toBe(0);

    const stored = (await h.db.collection('jobs').where('guid', '==', '5193736007').get()).docs[0].data();
    expect(stored.description.length).toBeGreaterThan(5_000);
    expect(stored.description.search(/\bSQL\b/)).toBeGreaterThan(5_000);

    const [mail, ...more] = await h.inbox('ada@example.com');
    expect(more).toEqual([]);
    expect(mail.subject).toMatch(/^1 new: Client Support Analyst I( at |, |$)/);
    expect(mail.text).toContain('“sql” in the description');
    // The card's excerpt is the passage naming SQL, not the company's story it opens with.
    expect(mail.text).toMatch(/\n {2}… [^\n]*\bSQL\b[^\n]*…\n/);
    expect(await h.inbox('bob@example.com')).toEqual([]);
  });

  it('a posting stored with its text cut at 2,000 characters still matches and renders', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['kotlin'], mode: 'instant' });
    const cut = capText(`We build Android apps in Kotlin. ${'Our story goes on. '.repeat(300)}`, 2_000);
    const old: Posting = {
      id: postingId('legacy', 'old-1'),
      source: 'legacy',
      guid: 'old-1',
      title: 'Android developer',
      url: 'https://jobs.example/old-1',
      description: cut,
      budget: null,
      skills: [],
      publishedAt: new Date('2026-07-28T10:00:00Z'),
    };
    await storeNewPostings(h.db, {
      postings: [old],
      now: new Date('2026-07-28T11:00:00Z'),
      runId: 'run-before',
      retentionDays: 30,
      maxNew: 10,
      label: 'Legacy',
    });

    const { status } = await cronWithSources(h, [], RUN_AT);
    expect(status).toBe(200);
    const [mail, ...more] = await h.inbox('ada@example.com');
    expect(more).toEqual([]);
    expect(mail.subject).toMatch(/^1 new: Android developer( at |, |$)/);
    expect(mail.text).toContain('We build Android apps in Kotlin.');
  });

  it('a text that reaches the cap is stored cut, and the run logs posting.text_cut for its source', async () => {
    const huge = `<p>${'Scout reads every word of a posting. '.repeat(2_000)}</p>`;
    const job = {
      id: 77,
      title: 'Endless posting',
      updated_at: '2026-07-28T10:00:00Z',
      absolute_url: 'https://boards.greenhouse.io/acme/jobs/77',
    };
    h.feeds.setFeed('/v1/boards/acme/jobs', {
      body: JSON.stringify({ jobs: [{ ...job, content: huge }], meta: { total: 1 } }),
      contentType: 'application/json',
    });
    const logged: { event: string; fields?: Record<string, unknown> }[] = [];
    const config = {
      ...h.config,
      SOURCES: JSON.stringify([{ kind: 'greenhouse', id: 'acme', params: { baseUrl: h.feeds.url, board: 'acme', company: 'Acme' } }]),
    };
    const response = await handleCronRequest(
      new Request(`http://localhost/api/cron?now=${encodeURIComponent(RUN_AT)}`, {
        headers: { authorization: `Bearer ${h.config.CRON_SECRET}` },
      }),
      { ...h.deps, config, log: (event, fields) => logged.push({ event, fields }) },
    );
    expect(response.status).toBe(200);
    const stored = (await h.db.collection('jobs').where('source', '==', 'acme').get()).docs[0].data();
    expect(stored.description.length).toBeGreaterThanOrEqual(MAX_DESCRIPTION - 1);
    expect(stored.description.endsWith('…')).toBe(true);
    expect(logged.filter((l) => l.event === 'posting.text_cut').map((l) => l.fields)).toEqual([
      expect.objectContaining({ source: 'acme', postings: 1, cap: MAX_DESCRIPTION }),
    ]);
  });
});
