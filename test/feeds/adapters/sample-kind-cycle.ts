import { expect } from 'vitest';
import { handleCronRequest } from '../../../lib/cron/handle-cron-request';
import type { SampleKind } from '../../../scripts/sample-feed/kinds/sample-kind';
import { createHarness } from '../../support/harness';

/**
 * The real cycle over one sample kind: the harness's sample server serves the kind's fixtures (dated
 * to end an hour ago), SOURCES names the kind's entry, GET /api/cron runs at the real clock, and an
 * instant subscriber for `keyword` gets one alert carrying the posting titled `title`.
 */
export async function expectSampleKindAlert(sample: SampleKind, input: { keyword: string; title: string }) {
  const h = await createHarness();
  try {
    await h.subscribe({ email: 'ada@example.com', keywords: [input.keyword], mode: 'instant' });
    const config = { ...h.config, SOURCES: JSON.stringify([sample.entry(h.feeds.url)]) };
    const now = new Date().toISOString();
    const response = await handleCronRequest(
      new Request(`http://localhost/api/cron?now=${encodeURIComponent(now)}`, {
        headers: { authorization: `Bearer ${h.config.CRON_SECRET}` },
      }),
      { ...h.deps, config },
    );
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body.failures).toBe(0);
    expect(body.instantEmails).toBe(1);
    const source = (await h.db.collection('feeds').doc(sample.entry(h.feeds.url).id).get()).data();
    expect(source?.lastError).toBeNull();
    const [mail] = await h.inbox('ada@example.com');
    expect(mail.text).toContain(input.title);
    const jobs = (await h.db.collection('jobs').where('title', '==', input.title).get()).docs.map((d) => d.data());
    expect(jobs).toHaveLength(1);
    return { mail, job: jobs[0] };
  } finally {
    await h.close();
  }
}
