import type { SampleKind } from './sample-kind';
import { offsetToNow, readFixtureJson } from './recent-dates';

type Entry = { epoch?: number; date?: string; last_updated?: number };

/** Remote OK's array (fixtures/remoteok/api.json) at /api, dated to end an hour ago (epoch and date alike). */
export const remoteOkSample: SampleKind = {
  kind: 'remoteok',
  async served(now = new Date()) {
    const fixture = (await readFixtureJson('remoteok', 'api.json')) as Entry[];
    const newest = Math.max(...fixture.map((entry) => entry.epoch ?? 0));
    const offsetSeconds = Math.round(offsetToNow(new Date(newest * 1000), now) / 1000);
    for (const entry of fixture) {
      if (entry.last_updated) entry.last_updated += offsetSeconds;
      if (entry.epoch) {
        entry.epoch += offsetSeconds;
        entry.date = new Date(entry.epoch * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
      }
    }
    return { '/api': { body: JSON.stringify(fixture, null, 2), contentType: 'application/json' } };
  },
  entry: (origin) => ({ kind: 'remoteok', id: 'remoteok-sample', params: { baseUrl: origin } }),
};
