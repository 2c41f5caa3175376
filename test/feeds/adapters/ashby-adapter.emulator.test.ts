import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ashbySample } from '../../../scripts/sample-feed/kinds/ashby';
import { createHarness, type Harness } from '../../support/harness';
import { describeHostileAnswers, HUGE_STRING, SCRIPT_TITLE } from '../../support/hostile-sources';
import { cronWithSources } from './board-cycle';

const board = (...jobs: unknown[]) => JSON.stringify({ apiVersion: '1', jobs });
const job = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  title: 'React developer',
  location: 'Remote - EU',
  secondaryLocations: [],
  department: 'Engineering',
  team: 'Web',
  isListed: true,
  isRemote: true,
  workplaceType: 'Remote',
  descriptionHtml: '<p>Build things in React.</p>'.repeat(10),
  descriptionPlain: 'Build things in React. '.repeat(10),
  publishedAt: '2026-11-30T05:00:00.000+00:00',
  employmentType: 'FullTime',
  jobUrl: `https://jobs.ashbyhq.com/acme/${id}`,
  applyUrl: `https://jobs.ashbyhq.com/acme/${id}/application`,
  ...fields,
});

describeHostileAnswers({
  kind: 'ashby',
  entry: (origin) => ({ kind: 'ashby', id: 'hostile', params: { baseUrl: origin, board: 'acme', company: 'Acme' } }),
  path: '/posting-api/job-board/acme',
  bodies: {
    valid: board(job('0d1e2f3a-0000-4000-8000-000000000001')),
    // The docs' example: strings, booleans, a location list, a compensation object.
    wrongTypes: JSON.stringify({
      apiVersion: 1,
      jobs: [
        {
          id: 12,
          title: ['React developer'],
          location: 7,
          secondaryLocations: 'Amsterdam',
          department: {},
          team: 3,
          isListed: 'yes',
          isRemote: 'no',
          workplaceType: 1,
          descriptionHtml: 5,
          descriptionPlain: null,
          publishedAt: 1_700_000_000,
          employmentType: false,
          jobUrl: 9,
          applyUrl: 8,
          compensation: 'lots',
        },
      ],
    }),
    // Ashby's id is also the last segment of jobUrl: a job without its id has neither.
    missingIds: board(job('x', { id: undefined, jobUrl: undefined }), job('y', { id: undefined, jobUrl: undefined })),
    hugeStrings: board(
      job('0d1e2f3a-0000-4000-8000-000000000002', {
        title: HUGE_STRING,
        descriptionPlain: HUGE_STRING,
        location: HUGE_STRING,
        secondaryLocations: [{ location: HUGE_STRING }],
      }),
    ),
    scriptTitles: board(job('0d1e2f3a-0000-4000-8000-000000000003', { title: SCRIPT_TITLE })),
  },
});

describe('ashby in the cycle', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => h.close());

  it('a subscriber is emailed a posting of the sample Ashby board, stored with its company, location and salary', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['kubernetes'], mode: 'instant' });
    const { status, body } = await cronWithSources(h, [ashbySample.entry(h.feeds.url)]);
    expect(status).toBe(200);
    expect(body.failures).toBe(0);
    const [mail, ...more] = await h.inbox('ada@example.com');
    expect(more).toEqual([]);
    expect(mail.subject).toMatch(/^1 new: Staff Platform Engineer( at |, |$)/);
    expect(mail.html).toContain('https://jobs.ashbyhq.com/quillstack/4c1f8e2a-7b3d-4f6e-9a0c-2d5b8e1f3a47');
    const stored = await h.db.collection('jobs').where('source', '==', 'ashby-sample').get();
    // Four listed jobs; the unlisted one is not stored.
    expect(stored.size).toBe(4);
    expect(stored.docs.map((d) => d.data()).find((p) => p.guid === '4c1f8e2a-7b3d-4f6e-9a0c-2d5b8e1f3a47')).toMatchObject({
      company: 'Quillstack',
      location: 'Remote - Europe; Amsterdam',
      remote: true,
      budget: { amount: 110_000, maxAmount: 140_000, currency: 'EUR', kind: 'yearly' },
    });
  });
});
