import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../lib/feeds/parse-feed';
import { scorePosting } from '../../lib/matching/score-posting';
import { parseSubscribersCsv } from '../../lib/subscribers/import-csv';
import { subscriberInputSchema } from '../../lib/subscribers/subscriber';
import { readSampleFeed } from '../../scripts/sample-feed/server';

describe('scripts/demo/demo-subscribers.csv', () => {
  it('holds four valid subscribers, two instant and two daily, each matching postings of the sample feed', async () => {
    const rows = parseSubscribersCsv(await readFile('scripts/demo/demo-subscribers.csv', 'utf8'));
    const subscribers = rows.map((row) => subscriberInputSchema.parse(row.input));
    expect(subscribers).toHaveLength(4);
    expect(subscribers.every((s) => s.email.endsWith('@example.com'))).toBe(true);
    expect(subscribers.filter((s) => s.mode === 'instant')).toHaveLength(2);
    expect(subscribers.filter((s) => s.mode === 'daily')).toHaveLength(2);

    const postings = parseFeed(await readSampleFeed(), { source: 'sample', baseUrl: 'http://127.0.0.1:3030/sample.xml' });
    for (const subscriber of subscribers) {
      const matched = postings.filter((p) => scorePosting(subscriber, p).matched);
      expect(matched.length, subscriber.email).toBeGreaterThanOrEqual(2);
      expect(matched.length, subscriber.email).toBeLessThan(postings.length / 2);
    }
  });
});
