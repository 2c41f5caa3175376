import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardBucketOf } from '../../lib/runtime/shard';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

describe('the ledger after a cycle', () => {
  it('one deliveries/{uid}_{jobId} document per matched pair, none per page, each with the fields of the data model', async () => {
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    await h.subscribe({ email: 'bob@example.com', keywords: ['react', 'django'], mode: 'daily' });
    h.serveFeed([...postingsAbout('react', 3, { at: new Date(NOW) }), ...postingsAbout('django', 2, { at: new Date(NOW) })]);

    expect((await h.cron({ now: NOW })).body).toMatchObject({ matches: 8, instantDeliveries: 3, queued: 5 });

    const jobs = (await h.db.collection('jobs').get()).docs.map((d) => ({ id: d.id, title: d.get('title') as string }));
    const react = jobs.filter((j) => /react/i.test(j.title)).map((j) => j.id);
    const ada = subscriberId('ada@example.com');
    const bob = subscriberId('bob@example.com');
    const expected = [...react.map((j) => `${ada}_${j}`), ...jobs.map((j) => `${bob}_${j.id}`)].sort();
    const docs = (await h.db.collection('deliveries').get()).docs;
    expect(docs.map((d) => d.id).sort()).toEqual(expected);
    for (const doc of docs) {
      expect(Object.keys(doc.data()).sort()).toEqual(
        [
          'uid',
          'jobId',
          'mode',
          'status',
          'score',
          'reasons',
          'emailKey',
          'digestDate',
          'reason',
          'runId',
          'createdAt',
          'sentAt',
          'expireAt',
          // Only what waits for a digest carries when it is due, and the bucket a shard's flush asks for.
          ...(doc.get('status') === 'queued' ? ['digestDueAt', 'shardBucket'] : []),
        ].sort(),
      );
      expect(doc.id).toBe(`${doc.get('uid')}_${doc.get('jobId')}`);
    }
    const alertKey = (await h.db.collection('emails').where('kind', '==', 'alert').get()).docs[0].id;
    expect(docs.filter((d) => d.get('uid') === ada).map((d) => [d.get('status'), d.get('emailKey')])).toEqual(
      Array(3).fill(['sending', alertKey]),
    );
    expect(docs.filter((d) => d.get('uid') === bob).map((d) => [d.get('status'), d.get('digestDate'), d.get('shardBucket')])).toEqual(
      Array(5).fill(['queued', '2026-11-30', shardBucketOf(bob)]),
    );
  });
});
