import { describe, expect, it } from 'vitest';
import { remotiveSample } from '../../../scripts/sample-feed/kinds/remotive';
import { describeHostileAnswers, HUGE_STRING, SCRIPT_TITLE } from '../../support/hostile-sources';
import { expectSampleKindAlert } from './sample-kind-cycle';

const job = (fields: Record<string, unknown>) => ({
  id: 1,
  title: 'React developer',
  url: 'https://remotive.com/remote-jobs/software-dev/react-developer-1',
  company_name: 'Acme',
  category: 'Software Development',
  tags: ['react'],
  job_type: 'full_time',
  publication_date: '2026-11-30T05:00:00',
  candidate_required_location: 'Worldwide',
  salary: '$100,000 - $120,000',
  description: `<p>${'Build things in React. '.repeat(20)}</p>`,
  ...fields,
});
const answer = (jobs: unknown[]) => JSON.stringify({ '0-legal-notice': 'Remotive API Legal Notice', 'job-count': jobs.length, jobs });

describeHostileAnswers({
  kind: 'remotive',
  entry: (origin) => ({ kind: 'remotive', id: 'hostile', params: { baseUrl: origin } }),
  path: '/api/remote-jobs',
  bodies: {
    valid: answer([job({})]),
    wrongTypes: answer([
      {
        id: 'one',
        title: 7,
        url: 8,
        company_name: 9,
        category: [],
        tags: 'react',
        job_type: 1,
        publication_date: true,
        candidate_required_location: {},
        salary: 100000,
        description: 12,
      },
    ]),
    missingIds: answer([job({ id: undefined }), job({ id: undefined, title: 'Vue developer' })]),
    hugeStrings: answer([
      job({ id: 2, title: HUGE_STRING, description: HUGE_STRING, company_name: HUGE_STRING, candidate_required_location: HUGE_STRING }),
    ]),
    scriptTitles: answer([job({ id: 3, title: SCRIPT_TITLE })]),
  },
});

describe('remotive in the cycle', () => {
  it('the sample Remotive answer reaches a subscriber as an alert, its company and location stored', async () => {
    const { job: stored } = await expectSampleKindAlert(remotiveSample, { keyword: 'typescript', title: 'Senior TypeScript Engineer' });
    expect(stored).toMatchObject({ company: 'Brightwave Analytics', location: 'Worldwide', remote: true });
  });
});
