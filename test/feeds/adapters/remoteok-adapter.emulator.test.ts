import { describe, expect, it } from 'vitest';
import { remoteOkSample } from '../../../scripts/sample-feed/kinds/remoteok';
import { describeHostileAnswers, HUGE_STRING, SCRIPT_TITLE } from '../../support/hostile-sources';
import { expectSampleKindAlert } from './sample-kind-cycle';

const EPOCH = Date.parse('2026-11-30T05:00:00Z') / 1000;
const legal = { last_updated: EPOCH, legal: 'API Terms of Service: Please link back to the URL on Remote OK.' };
const job = (fields: Record<string, unknown>) => ({
  slug: 'remote-react-developer-acme-1',
  id: '1',
  epoch: EPOCH,
  date: '2026-11-30T05:00:00+00:00',
  company: 'Acme',
  company_logo: '',
  position: 'React developer',
  tags: ['react'],
  logo: '',
  description: `<p>${'Build things in React. '.repeat(20)}</p>`,
  location: 'Worldwide',
  salary_min: 100000,
  salary_max: 120000,
  apply_url: 'https://remoteOK.com/remote-jobs/remote-react-developer-acme-1',
  url: 'https://remoteOK.com/remote-jobs/remote-react-developer-acme-1',
  ...fields,
});
const answer = (jobs: unknown[]) => JSON.stringify([legal, ...jobs]);

describeHostileAnswers({
  kind: 'remoteok',
  entry: (origin) => ({ kind: 'remoteok', id: 'hostile', params: { baseUrl: origin } }),
  path: '/api',
  bodies: {
    valid: answer([job({})]),
    wrongTypes: answer([
      {
        slug: 1,
        id: { value: 1 },
        epoch: 'now',
        date: 5,
        company: 6,
        company_logo: 7,
        position: ['React developer'],
        tags: 'react',
        logo: 8,
        description: 9,
        location: 10,
        salary_min: '100000',
        salary_max: '120000',
        apply_url: 11,
        url: 12,
      },
    ]),
    missingIds: answer([job({ id: undefined }), job({ id: undefined, position: 'Vue developer' })]),
    hugeStrings: answer([job({ id: '2', position: HUGE_STRING, description: HUGE_STRING, company: HUGE_STRING, location: HUGE_STRING })]),
    scriptTitles: answer([job({ id: '3', position: SCRIPT_TITLE })]),
  },
});

describe('remoteok in the cycle', () => {
  it('the sample Remote OK answer reaches a subscriber as an alert, its company and location stored', async () => {
    const { job: stored, mail } = await expectSampleKindAlert(remoteOkSample, { keyword: 'rust', title: 'Senior Rust Engineer' });
    expect(stored).toMatchObject({ company: 'Ferrite Labs', location: 'Worldwide', remote: true });
    // The link back to the job's page on Remote OK, as the terms ask.
    expect(mail.text).toContain('https://remoteok.com/remote-jobs/remote-senior-rust-engineer-ferrite-labs-1137512');
  });
});
