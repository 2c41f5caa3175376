import { describe, expect, it } from 'vitest';
import type { Posting } from '../../lib/feeds/posting';
import { matchPostings } from '../../lib/matching/match-postings';
import { scorePosting } from '../../lib/matching/score-posting';
import { buildKeywordLookup } from '../../lib/matching/keyword-lookup';
import type { Subscriber } from '../../lib/subscribers/subscriber';
import { NO_MIN_PAY, type MinPay } from '../../lib/pay/minimum-pay';

const fixedUsd = (amount: number): MinPay => ({ ...NO_MIN_PAY, fixed: { amount, currency: 'USD' } });

const posting = (fields: Partial<Posting>): Posting => ({
  id: 'src_1',
  source: 'src',
  guid: null,
  title: '',
  url: null,
  description: '',
  budget: null,
  skills: [],
  publishedAt: null,
  ...fields,
});
const subscriber = (fields: Partial<Subscriber>): Subscriber => ({
  id: 'u1',
  email: 'u@example.com',
  keywords: [],
  excludes: [],
  about: '',
  profileVersion: 1,
  fitThreshold: 60,
  minPay: NO_MIN_PAY,
  mode: 'instant',
  status: 'active',
  timezone: 'UTC',
  digestHour: null,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
  createdAt: new Date(0),
  confirmedAt: new Date(0),
  updatedAt: new Date(0),
  ...fields,
});

describe('scorePosting', () => {
  it('matches case-insensitively on word boundaries, so "java" does not match "JavaScript"', () => {
    expect(scorePosting(subscriber({ keywords: ['java'] }), posting({ title: 'JavaScript developer' })).matched).toBe(false);
    expect(scorePosting(subscriber({ keywords: ['java'] }), posting({ title: 'Senior JAVA developer' })).matched).toBe(true);
  });

  it('understands keywords with symbols and phrases: c++, node.js, .net, "react native"', () => {
    const s = subscriber({ keywords: ['c++', 'node.js', '.net', 'react native'] });
    for (const title of ['C++ engine work', 'API in Node.js.', 'Port .NET app', 'React   Native app']) {
      expect(scorePosting(s, posting({ title })).matched, title).toBe(true);
    }
    expect(scorePosting(subscriber({ keywords: ['react native'] }), posting({ title: 'React web app, not native' })).matched).toBe(false);
  });

  it('a word in a script with combining marks is whole: "हिन" does not match inside "हिन्दी", "हिन्दी" matches itself', () => {
    const title = 'हिन्दी अनुवादक चाहिए';
    expect(scorePosting(subscriber({ keywords: ['हिन'] }), posting({ title })).matched).toBe(false);
    expect(scorePosting(subscriber({ keywords: ['हिन्दी'] }), posting({ title })).matched).toBe(true);
    // The inverted index must find it too: its tokens keep the marks.
    expect(matchPostings([posting({ title })], [subscriber({ keywords: ['हिन्दी'] })])).toHaveLength(1);
  });

  it('an exclude anywhere rejects the posting', () => {
    const verdict = scorePosting(
      subscriber({ keywords: ['react'], excludes: ['wordpress'] }),
      posting({ title: 'React', description: 'on WordPress' }),
    );
    expect(verdict).toEqual({ matched: false, reason: 'excluded by “wordpress”', nearMiss: 'excluded', reasons: ['“react” in the title'] });
  });

  it('a near miss is only a posting that matched a keyword: an excluded or under-budget posting without one is just "no keyword"', () => {
    const s = subscriber({ keywords: ['react'], excludes: ['wordpress'], minPay: fixedUsd(1000) });
    expect(scorePosting(s, posting({ title: 'Vue on WordPress' }))).toEqual({ matched: false, reason: 'no keyword' });
    expect(scorePosting(s, posting({ title: 'Vue', budget: { amount: 5, currency: 'USD', kind: 'fixed' } }))).toEqual({
      matched: false,
      reason: 'no keyword',
    });
    expect(scorePosting(s, posting({ title: 'React', budget: { amount: 5, currency: 'USD', kind: 'fixed' } }))).toMatchObject({
      matched: false,
      nearMiss: 'under_min_budget',
    });
  });

  it('matchPostings keeps near misses only for the subscribers it is told to', () => {
    const daily = subscriber({ id: 'd', keywords: ['react'], excludes: ['wordpress'] });
    const instant = subscriber({ id: 'i', keywords: ['react'], excludes: ['wordpress'] });
    const found = matchPostings([posting({ title: 'React on WordPress' })], [daily, instant], { keepNearMisses: (s) => s.id === 'd' });
    expect(found.map((c) => [c.subscriber.id, c.nearMiss])).toEqual([['d', 'excluded']]);
  });

  it('a stated fixed budget under the minimum rejects; an unstated budget passes; hourly rates are not compared', () => {
    const s = subscriber({ keywords: ['react'], minPay: fixedUsd(1000) });
    expect(scorePosting(s, posting({ title: 'React', budget: { amount: 500, currency: 'USD', kind: 'fixed' } })).matched).toBe(false);
    expect(scorePosting(s, posting({ title: 'React' })).matched).toBe(true);
    expect(scorePosting(s, posting({ title: 'React', budget: { amount: 40, currency: 'USD', kind: 'hourly' } })).matched).toBe(true);
  });

  it('scores title above skills above description, capped at 100, with reasons a person can read', () => {
    const s = subscriber({ keywords: ['react', 'typescript', 'firebase'] });
    const title = scorePosting(s, posting({ title: 'React dev' }));
    const body = scorePosting(s, posting({ description: 'some react' }));
    expect(title.matched && body.matched && title.score > body.score).toBe(true);
    const all = scorePosting(subscriber({ keywords: ['a1', 'a2', 'a3', 'a4'] }), posting({ title: 'a1 a2 a3 a4' }));
    expect(all).toMatchObject({ matched: true, score: 100 });
    expect(title).toMatchObject({ reasons: ['“react” in the title'] });
  });
});

describe('the subscriber index', () => {
  it('finds every subscriber the full scan finds, without scoring non-candidates', () => {
    const subscribers = [
      subscriber({ id: 'a', keywords: ['react'] }),
      subscriber({ id: 'b', keywords: ['node.js'] }),
      subscriber({ id: 'c', keywords: ['django'] }),
      subscriber({ id: 'd', keywords: ['.net', 'c#'] }),
    ];
    const postings = [
      posting({ id: '1', title: 'React + Node.js' }),
      posting({ id: '2', title: 'C#/.NET migration' }),
      posting({ id: '3', title: 'Rust' }),
    ];
    const fullScan = postings.flatMap((p) => subscribers.filter((s) => scorePosting(s, p).matched).map((s) => `${s.id}:${p.id}`));
    const indexed = matchPostings(postings, subscribers).map((c) => `${c.subscriber.id}:${c.posting.id}`);
    expect(indexed.sort()).toEqual(fullScan.sort());
    expect(buildKeywordLookup(subscribers).candidatesFor(postings[2])).toEqual([]);
  });
});
