import type { SampleKind } from './sample-kind';
import { offsetToNow, readFixtureJson } from './recent-dates';

type Fixture = { jobs: Array<{ publication_date: string }> };

/** Remotive's answer (fixtures/remotive/remote-jobs.json) at its own path, dated to end an hour ago. */
export const remotiveSample: SampleKind = {
  kind: 'remotive',
  async served(now = new Date()) {
    const fixture = (await readFixtureJson('remotive', 'remote-jobs.json')) as Fixture;
    // publication_date has no offset: UTC, as the adapter reads it; written back in the same shape.
    const dates = fixture.jobs.map((job) => new Date(`${job.publication_date}Z`));
    const offset = offsetToNow(new Date(Math.max(...dates.map((d) => d.getTime()))), now);
    fixture.jobs.forEach((job, i) => (job.publication_date = new Date(dates[i].getTime() + offset).toISOString().slice(0, 19)));
    return { '/api/remote-jobs': { body: JSON.stringify(fixture, null, 2), contentType: 'application/json' } };
  },
  entry: (origin) => ({ kind: 'remotive', id: 'remotive-sample', params: { baseUrl: origin, category: 'software-dev', limit: 5 } }),
};
