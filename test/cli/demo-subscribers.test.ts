import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../lib/feeds/parse-feed';
import { scorePosting } from '../../lib/matching/score-posting';
import { parseSubscribersCsv } from '../../lib/subscribers/import-csv';
import { DEFAULT_FIT_THRESHOLD } from '../../lib/subscribers/fit-profile';
import { minPayOfSubscriberInput, subscriberInputSchema } from '../../lib/subscribers/subscriber';
import { scorePosting as fakeModelVerdict } from '../../scripts/model-fake/scoring';
import { readSampleFeed } from '../../scripts/sample-feed/server';

const readCsv = async (path: string) =>
  parseSubscribersCsv(await readFile(path, 'utf8')).map((row) => {
    const input = subscriberInputSchema.parse(row.input);
    return { ...input, minPay: minPayOfSubscriberInput(input) };
  });

describe('scripts/demo/demo-subscribers.csv', () => {
  it('holds four valid subscribers, two instant and two daily, each matching postings of the sample feed', async () => {
    const subscribers = await readCsv('scripts/demo/demo-subscribers.csv');
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

  it('gives one subscriber a written query, which reads as itself and matches what it says', async () => {
    const subscribers = await readCsv('scripts/demo/demo-subscribers.csv');
    const written = subscribers.filter((s) => s.query);
    expect(written.map((s) => [s.email, s.query])).toEqual([
      ['tomas.novak@example.com', 'title:(firebase OR firestore) OR "security rules" -flutter'],
    ]);
    const postings = parseFeed(await readSampleFeed(), { source: 'sample', baseUrl: 'http://127.0.0.1:3030/sample.xml' });
    const reasons = postings.flatMap((p) => {
      const verdict = scorePosting(written[0], p);
      return verdict.matched ? verdict.reasons : [];
    });
    // Its email's reasons name the query's clauses.
    expect(reasons).toContain('matched title:firebase');
  });

  it('demo-subscribers-ai.csv (npm run demo -- --ai) is the same four, each with an about, and the fake model keeps some matches and turns some down', async () => {
    const plain = await readCsv('scripts/demo/demo-subscribers.csv');
    const withAbout = await readCsv('scripts/demo/demo-subscribers-ai.csv');
    // Two files, one story: only `about` may differ, so the demo with and without --ai starts from the same subscribers.
    expect(withAbout.map(({ about: _about, ...rest }) => rest)).toEqual(plain);
    expect(withAbout.every((s) => (s.about ?? '').length > 0)).toBe(true);

    const postings = parseFeed(await readSampleFeed(), { source: 'sample', baseUrl: 'http://127.0.0.1:3030/sample.xml' });
    for (const subscriber of withAbout) {
      const fits = postings
        .filter((p) => scorePosting(subscriber, p).matched)
        .map((p) => fakeModelVerdict({ ...subscriber, about: subscriber.about ?? '' }, p).fit);
      expect(Math.max(...fits), subscriber.email).toBeGreaterThanOrEqual(DEFAULT_FIT_THRESHOLD);
      expect(Math.min(...fits), subscriber.email).toBeLessThan(DEFAULT_FIT_THRESHOLD);
    }
  });
});
