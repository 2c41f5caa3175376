import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leverSample } from '../../../scripts/sample-feed/kinds/lever';
import { createHarness, type Harness } from '../../support/harness';
import { describeHostileAnswers, HUGE_STRING, SCRIPT_TITLE } from '../../support/hostile-sources';
import { cronWithSources } from './board-cycle';

const postings = (...items: unknown[]) => JSON.stringify(items);
const posting = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  text: 'React developer',
  categories: { commitment: 'Full-time', team: 'Web', location: 'Remote - EU', allLocations: ['Remote - EU'] },
  country: null,
  workplaceType: 'remote',
  createdAt: Date.parse('2026-11-30T05:00:00Z'),
  description: '<div>Build things in React.</div>'.repeat(10),
  descriptionPlain: 'Build things in React. '.repeat(10),
  lists: [{ text: 'You bring', content: '<li>React</li>' }],
  additional: '',
  additionalPlain: '',
  hostedUrl: `https://jobs.lever.co/acme/${id}`,
  applyUrl: `https://jobs.lever.co/acme/${id}/apply`,
  ...fields,
});

describeHostileAnswers({
  kind: 'lever',
  entry: (origin) => ({ kind: 'lever', id: 'hostile', params: { baseUrl: origin, site: 'acme', company: 'Acme' } }),
  path: '/v0/postings/acme',
  bodies: {
    valid: postings(posting('0c1d2e3f-0000-4000-8000-000000000001')),
    // The README's JSON-mode table: `id`/`text` strings, `categories` an object, `lists` an array, `salaryRange` an object.
    wrongTypes: postings({
      id: 42,
      text: 7,
      categories: 'Engineering',
      country: 1,
      workplaceType: true,
      createdAt: 'yesterday',
      description: 5,
      descriptionPlain: [],
      lists: 'none',
      additional: {},
      hostedUrl: 9,
      applyUrl: false,
      salaryRange: 'lots',
    }),
    missingIds: postings(posting('x', { id: undefined }), posting('y', { id: undefined })),
    hugeStrings: postings(
      posting('0c1d2e3f-0000-4000-8000-000000000002', {
        text: HUGE_STRING,
        description: HUGE_STRING,
        categories: { location: HUGE_STRING, allLocations: [HUGE_STRING] },
      }),
    ),
    scriptTitles: postings(posting('0c1d2e3f-0000-4000-8000-000000000003', { text: SCRIPT_TITLE })),
  },
});

describe('lever in the cycle', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => h.close());

  it('a subscriber is emailed a posting of the sample Lever site, stored with its company, location and salary', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    const { status, body } = await cronWithSources(h, [leverSample.entry(h.feeds.url)]);
    expect(status).toBe(200);
    expect(body.failures).toBe(0);
    const [mail, ...more] = await h.inbox('ada@example.com');
    expect(more).toEqual([]);
    expect(mail.subject).toMatch(/^1 new: Senior Frontend Engineer( at |, |$)/);
    expect(mail.html).toContain('https://jobs.lever.co/harborhealth/3f2c9a1e-6b7d-4e21-9c55-0a8b7d1e4f10');
    const stored = await h.db.collection('jobs').where('source', '==', 'lever-sample').get();
    expect(stored.size).toBe(4);
    expect(stored.docs.map((d) => d.data()).find((p) => p.guid === '3f2c9a1e-6b7d-4e21-9c55-0a8b7d1e4f10')).toMatchObject({
      company: 'Harbor Health',
      location: 'Remote - US',
      remote: true,
      budget: { amount: 160_000, maxAmount: 195_000, currency: 'USD', kind: 'yearly' },
    });
  });
});
