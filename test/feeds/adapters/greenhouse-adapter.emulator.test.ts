import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { greenhouseSample } from '../../../scripts/sample-feed/kinds/greenhouse';
import { createHarness, type Harness } from '../../support/harness';
import { describeHostileAnswers, HUGE_STRING, SCRIPT_TITLE } from '../../support/hostile-sources';
import { cronWithSources } from './board-cycle';

const jobs = (...items: unknown[]) => JSON.stringify({ jobs: items, meta: { total: items.length } });
const job = (id: number, fields: Record<string, unknown> = {}) => ({
  id,
  internal_job_id: id + 1,
  title: 'React developer',
  updated_at: '2026-11-30T05:00:00Z',
  location: { name: 'Remote - EU' },
  absolute_url: `https://boards.greenhouse.io/acme/jobs/${id}`,
  content: '&lt;p&gt;Build things in React.&lt;/p&gt;'.repeat(10),
  departments: [{ id: 1, name: 'Engineering', parent_id: null, child_ids: [] }],
  offices: [],
  metadata: null,
  ...fields,
});

describeHostileAnswers({
  kind: 'greenhouse',
  entry: (origin) => ({ kind: 'greenhouse', id: 'hostile', params: { baseUrl: origin, board: 'acme' } }),
  path: '/v1/boards/acme/jobs',
  // The board's name, asked after a good list when the entry names no company.
  serveValid: (server) =>
    server.setFeed('/v1/boards/acme', { body: JSON.stringify({ name: 'Acme', content: '' }), contentType: 'application/json' }),
  bodies: {
    valid: jobs(job(1001)),
    // "List jobs": `id` a number, `title` a string, `location` an object, `departments`/`offices` arrays.
    wrongTypes: JSON.stringify({
      jobs: [
        {
          id: '1001',
          internal_job_id: 'x',
          title: 7,
          updated_at: 5,
          location: 'Remote',
          absolute_url: 3,
          content: {},
          departments: 'Engineering',
          offices: 1,
          metadata: 'none',
        },
      ],
      meta: { total: 'one' },
    }),
    missingIds: jobs(job(1002, { id: undefined }), job(1003, { id: undefined })),
    hugeStrings: jobs(job(1004, { title: HUGE_STRING, content: HUGE_STRING, location: { name: HUGE_STRING } })),
    scriptTitles: jobs(job(1005, { title: SCRIPT_TITLE })),
  },
});

describe('greenhouse in the cycle', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => h.close());

  it('a subscriber is emailed a posting of the sample Greenhouse board, its card naming the company and location', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['postgres'], mode: 'instant' });
    const { status, body } = await cronWithSources(h, [greenhouseSample.entry(h.feeds.url)]);
    expect(status).toBe(200);
    expect(body.failures).toBe(0);
    const [mail, ...more] = await h.inbox('ada@example.com');
    expect(more).toEqual([]);
    expect(mail.subject).toMatch(/^1 new: Senior Backend Engineer \(Remote, US\)( at |, |$)/);
    expect(mail.html).toContain('https://boards.greenhouse.io/northwindlabs/jobs/7104223');
    expect(mail.html).toContain('Northwind Labs · Remote - United States');
    expect(mail.text).toContain('Northwind Labs · Remote - United States');
    const stored = await h.db.collection('jobs').where('source', '==', 'greenhouse-sample').get();
    expect(stored.size).toBe(5);
    expect(stored.docs.map((d) => d.data()).find((p) => p.guid === '7104223')).toMatchObject({
      company: 'Northwind Labs',
      location: 'Remote - United States',
      remote: true,
    });
    expect((await h.db.collection('feeds').doc('greenhouse-sample').get()).data()).toMatchObject({ lastError: null });
  });
});
