import type { Firestore } from 'firebase-admin/firestore';
import { subscribersCollection, subscriberId, type Subscriber } from '../../lib/subscribers/subscriber';
import type { TestItem } from '../sample-feed/rss-feed';

/**
 * Synthetic data with a known match rate: K = 1 / matchRate keywords; subscriber i follows keyword
 * i mod K, posting j names keyword j mod K, so each (subscriber, posting) pair matches with
 * probability 1/K. Every other subscriber is instant, the rest daily.
 */
export type BenchShape = { subscribers: number; postings: number; matchRate: number };

export const keywordCount = (shape: BenchShape) => Math.max(1, Math.round(1 / shape.matchRate));
const keyword = (i: number) => `kw${i}`;

export async function seedSubscribers(db: Firestore, shape: BenchShape, now: Date): Promise<void> {
  const k = keywordCount(shape);
  const writes: Promise<unknown>[] = [];
  for (let start = 0; start < shape.subscribers; start += 500) {
    const batch = db.batch();
    for (let i = start; i < Math.min(shape.subscribers, start + 500); i++) {
      const email = `bench${i}@example.com`;
      const subscriber: Subscriber = {
        id: subscriberId(email),
        email,
        keywords: [keyword(i % k)],
        excludes: [],
        minBudget: null,
        mode: i % 2 === 0 ? 'instant' : 'daily',
        about: '',
        profileVersion: 1,
        fitThreshold: 60,
        status: 'active',
        timezone: 'UTC',
        digestHour: null,
        weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        weeklyDay: 'mon',
        createdAt: now,
        confirmedAt: now,
        updatedAt: now,
      };
      batch.set(subscribersCollection(db).doc(subscriber.id), subscriber);
    }
    writes.push(batch.commit());
    if (writes.length >= 8) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}

export function benchPostings(shape: BenchShape, now: Date): TestItem[] {
  const k = keywordCount(shape);
  return Array.from({ length: shape.postings }, (_, j) => ({
    guid: `bench-${j}`,
    title: `Senior ${keyword(j % k)} engineer for a ${j % 3 === 0 ? 'marketplace' : 'SaaS'} (${j})`,
    link: `https://jobs.example.com/bench/${j}`,
    description: `<p>We need help with ${keyword(j % k)}. Remote, long term.</p><b>Budget</b>: $${1000 + (j % 20) * 250}`,
    pubDate: new Date(now.getTime() - (j + 1) * 1000).toUTCString(),
  }));
}

/** Expected candidate pairs for a shape (every subscriber whose keyword the posting names). */
export function expectedMatches(shape: BenchShape): number {
  const k = keywordCount(shape);
  let total = 0;
  for (let j = 0; j < shape.postings; j++) {
    const kw = j % k;
    total += kw < shape.subscribers % k ? Math.ceil(shape.subscribers / k) : Math.floor(shape.subscribers / k);
  }
  return total;
}
