import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Firestore } from 'firebase-admin/firestore';
import type { Posting } from '../../lib/feeds/posting';
import { postingKeyIds, postingKeysCollection } from '../../lib/feeds/posting-keys';
import { postingsCollection, type StoredPosting } from '../../lib/feeds/postings-collection';
import { loadPendingPostings, markPostingsMatched, MAX_SIGHTINGS, storeNewPostings } from '../../lib/feeds/store-postings';
import { runCycle } from '../../lib/cycle/run-cycle';
import { noFailpoints } from '../../lib/runtime/failpoints';
import type { Config } from '../../lib/runtime/config';
import { addDays } from '../../lib/store/timestamps';
import { rssFeed, type TestItem } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';

const DAY0 = '2026-11-30T06:00:00Z';
const DAY9 = '2026-12-09T06:00:00Z';
const after = (iso: string, minutes: number) => new Date(new Date(iso).getTime() + minutes * 60_000).toISOString();

const TEXT =
  'Acme is hiring a React engineer to rebuild our customer dashboard. You will own the front end, work closely with design and ship every week. Remote, European hours.';
const job = (input: { guid: string; link: string; budget: number; at: string }): TestItem => ({
  guid: input.guid,
  title: 'Senior React engineer (contract)',
  link: input.link,
  description: `<p>${TEXT}</p><p><b>Budget</b>: $${input.budget}</p>`,
  pubDate: new Date(new Date(input.at).getTime() - 30 * 60_000).toUTCString(),
  categories: ['react'],
});

let h: Harness;
afterEach(async () => h?.close());

/** n runs at once, each under its own lock: the lock is out of the picture, only the ledger keeps one card per job. */
async function runsTogether(n: number, now: string, config: Config) {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      runCycle(
        { ...h.deps, config, failpoint: noFailpoints },
        { now: new Date(now), dryRun: false, trigger: 'test', lockName: `dedup-${now}-${i}` },
      ),
    ),
  );
  expect(results.every((r) => r.kind === 'ran')).toBe(true);
  return results;
}

const itemLines = (text: string) => text.split('\n').filter((l) => l.startsWith('* '));

describe('one card per real job', () => {
  beforeEach(async () => {
    h = await createHarness();
  });

  it('one job on two boards, then reposted with a raised budget, reaches each subscriber once under 8 concurrent runs, both boards on the card', async () => {
    // Two boards on the one sample server, at two hosts: "localhost" and "127.0.0.1".
    const boardA = `http://localhost:${h.feeds.port}/board-a.xml`;
    const boardB = `http://127.0.0.1:${h.feeds.port}/board-b.xml`;
    const config = { ...h.config, FEED_URLS: `board-a=${boardA}, board-b=${boardB}` };
    // Each board names itself in its feed's title: the cards say "Seen on" that name, not the host the feed is read from.
    const titles: Record<string, string> = { '/board-a.xml': 'All jobs | Board A', '/board-b.xml': 'Board B' };
    const serve = (path: string, items: TestItem[]) =>
      h.feeds.setFeed(path, { body: rssFeed(items, { title: titles[path] }), contentType: 'application/rss+xml' });

    const instant = 'ada@example.com';
    const daily = 'dan@example.com';
    await h.subscribe({ email: instant, keywords: ['react'], mode: 'instant' });
    await h.subscribe({ email: daily, keywords: ['react'], mode: 'daily' });

    // The same job on both boards: other guids, links that differ only in tracking.
    const linkA = 'https://www.acme.example/jobs/react-42?utm_source=board-a&utm_medium=rss';
    const linkB = 'https://acme.example/jobs/react-42/?ref=board-b&gh_src=feed';
    serve('/board-a.xml', [job({ guid: 'a-1001', link: linkA, budget: 300, at: DAY0 })]);
    serve('/board-b.xml', [job({ guid: 'b-77', link: linkB, budget: 300, at: DAY0 })]);
    await runsTogether(8, DAY0, config);
    await runsTogether(8, after(DAY0, 125), config); // 08:05: the daily digest is due

    const jobs = (await postingsCollection(h.db).get()).docs.map((d) => d.data());
    expect(jobs).toHaveLength(2);
    const canonicals = jobs.filter((p) => p.matchState !== 'duplicate');
    expect(canonicals).toHaveLength(1);
    const [canonical] = canonicals;
    expect(jobs.every((p) => p.canonicalId === canonical.id)).toBe(true);
    expect(canonical.sightings?.map((s) => s.label).sort()).toEqual(['Board A', 'Board B']);

    const [alert, ...moreAlerts] = await h.inbox(instant);
    expect(moreAlerts).toHaveLength(0);
    expect(itemLines(alert.text!)).toHaveLength(1);
    expect(alert.html).toContain('Seen on');
    expect(alert.html).toContain(`href="${linkA.replace(/&/g, '&amp;')}"`);
    expect(alert.html).toContain(`href="${linkB.replace(/&/g, '&amp;')}"`);
    expect(alert.text).toMatch(/Seen on Board [AB] <.+>, Board [AB] <.+>/);
    expect(alert.text).not.toContain('127.0.0.1');
    const [digest, ...moreDigests] = await h.inbox(daily);
    expect(moreDigests).toHaveLength(0);
    expect(itemLines(digest.text!)).toHaveLength(1);
    expect(digest.text).toContain('Seen on');

    // Nine days later board A reposts it: a new guid and a new link, the same text, the budget raised.
    const later = 'lee@example.com';
    await h.subscribe({ email: later, keywords: ['react'], mode: 'instant', minBudget: 500 });
    const repostLink = 'https://acme.example/jobs/react-42-reposted';
    serve('/board-a.xml', [job({ guid: 'a-2040', link: repostLink, budget: 600, at: DAY9 })]);
    await runsTogether(8, DAY9, config);
    await runsTogether(8, after(DAY9, 125), config);

    expect(await h.inbox(instant)).toHaveLength(1);
    expect(await h.inbox(daily)).toHaveLength(1);
    const [repost, ...moreReposts] = await h.inbox(later);
    expect(moreReposts).toHaveLength(0);
    expect(repost.text).toContain('reposted; first seen 9 days ago');
    expect(repost.text).toContain('budget raised $300 → $600');
    expect(repost.html).toContain('reposted; first seen 9 days ago');
    expect(repost.html).toContain('budget raised $300 → $600');
    // Board A's entry now points at its new listing; board B's is still there.
    expect(repost.html).toContain(`href="${repostLink}"`);
    expect(repost.html).toContain(`href="${linkB.replace(/&/g, '&amp;')}"`);

    const deliveries = await h.deliveryOutcomes();
    expect(deliveries.map((d) => d.jobId)).toEqual([canonical.id, canonical.id, canonical.id]);
    const stored = (await postingsCollection(h.db).doc(canonical.id).get()).data()!;
    expect(stored).toMatchObject({ matchState: 'matched', revision: 1, budget: { amount: 600 }, previousBudget: { amount: 300 } });
  });
});

// ── The store alone ───────────────────────────────────────────────────────────────────────────────

const posting = (source: string, guid: string, at: Date, extra: Partial<Posting> = {}): Posting => ({
  id: `${source}_${guid}`,
  source,
  guid,
  title: 'Senior React engineer (contract)',
  url: `https://acme.example/jobs/react-42?utm_source=${source}`,
  description: `${TEXT} Budget: $300`,
  budget: { amount: 300, currency: 'USD', kind: 'fixed' },
  skills: ['react'],
  publishedAt: at,
  ...extra,
});

const store = (db: Firestore, postings: Posting[], now: Date, runId: string, retentionDays = 30) =>
  storeNewPostings(db, { postings, now, runId, retentionDays, maxNew: 500, label: postings[0].source });

async function allPostings(db: Firestore): Promise<StoredPosting[]> {
  return (await postingsCollection(db).get()).docs.map((d) => d.data());
}

describe('storing copies of one job', () => {
  beforeEach(async () => {
    h = await createHarness();
  });

  it('a run counts a copy apart: one new job, one duplicate listing, whichever board it read first', async () => {
    const boardA = `http://localhost:${h.feeds.port}/board-a.xml`;
    const boardB = `http://127.0.0.1:${h.feeds.port}/board-b.xml`;
    const config = { ...h.config, FEED_URLS: `board-a=${boardA}, board-b=${boardB}` };
    const serve = (path: string, items: TestItem[]) => h.feeds.setFeed(path, { body: rssFeed(items), contentType: 'application/rss+xml' });
    serve('/board-a.xml', [job({ guid: 'a-1', link: 'https://acme.example/jobs/7?utm_source=a', budget: 300, at: DAY0 })]);
    serve('/board-b.xml', [job({ guid: 'b-1', link: 'https://acme.example/jobs/7?ref=b', budget: 300, at: DAY0 })]);
    const [run] = await runsTogether(1, DAY0, config);
    if (run.kind !== 'ran') throw new Error('the run did not run');
    expect(run.jobsNew).toBe(1);
    const { feeds } = run;
    expect(feeds.reduce((n, f) => n + (f.duplicates ?? 0), 0)).toBe(1);
    expect(feeds.reduce((n, f) => n + (f.postings ?? 0), 0)).toBe(2);
  });

  it('8 concurrent stores of the same two copies converge on one canonical posting that lists both sources', async () => {
    const now = new Date(DAY0);
    const a = posting('board-a', 'a1', now);
    const b = posting('board-b', 'b1', now, { url: 'https://www.acme.example/jobs/react-42/?ref=board-b' });
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => store(h.db, [i % 2 === 0 ? a : b], now, `run-${i}`)));

    const stored = await allPostings(h.db);
    expect(stored).toHaveLength(2);
    const canonical = stored.filter((p) => p.matchState === 'pending');
    expect(canonical).toHaveLength(1);
    const duplicate = stored.find((p) => p.matchState === 'duplicate')!;
    expect(duplicate.canonicalId).toBe(canonical[0].id);
    expect(canonical[0].canonicalId).toBe(canonical[0].id);
    expect(canonical[0].sightings?.map((s) => s.source).sort()).toEqual(['board-a', 'board-b']);
    expect(canonical[0].revision).toBe(0);
    // Each copy was stored by exactly one of the runs.
    expect(outcomes.reduce((n, o) => n + o.created, 0)).toBe(2);
    expect(outcomes.reduce((n, o) => n + o.duplicates, 0)).toBe(1);
    const keys = await postingKeysCollection(h.db).get();
    expect(keys.docs.map((k) => k.data().canonicalId)).toEqual(keys.docs.map(() => canonical[0].id));
    expect(keys.size).toBe(2); // one URL, one fingerprint
  });

  it('a copy seen after the key window is a new job; the key then names it, and copies within its window join it', async () => {
    const day0 = new Date(DAY0);
    await store(h.db, [posting('board-a', 'a1', day0)], day0, 'run-1');
    const day31 = addDays(day0, 31);
    await store(h.db, [posting('board-b', 'b1', day31)], day31, 'run-2');
    const day32 = addDays(day0, 32);
    await store(h.db, [posting('board-c', 'c1', day32)], day32, 'run-3');

    const byId = new Map((await allPostings(h.db)).map((p) => [p.id, p]));
    expect(byId.get('board-a_a1')).toMatchObject({ canonicalId: 'board-a_a1' });
    expect(byId.get('board-b_b1')).toMatchObject({ canonicalId: 'board-b_b1', matchState: 'pending' });
    expect(byId.get('board-c_c1')).toMatchObject({ canonicalId: 'board-b_b1', matchState: 'duplicate' });
    const keyIds = postingKeyIds(posting('board-a', 'a1', day0));
    for (const id of keyIds) {
      const key = (await postingKeysCollection(h.db).doc(id).get()).data()!;
      expect(key).toMatchObject({ canonicalId: 'board-b_b1', firstSeenAt: day31, expireAt: addDays(day31, 30) });
    }
  });

  it('the key window is never longer than RETENTION_DAYS: with 10 days kept, a copy on day 11 is a new job', async () => {
    const day0 = new Date(DAY0);
    await store(h.db, [posting('board-a', 'a1', day0)], day0, 'run-1', 10);
    const day11 = addDays(day0, 11);
    await store(h.db, [posting('board-b', 'b1', day11)], day11, 'run-2', 10);
    const stored = await allPostings(h.db);
    expect(stored.filter((p) => p.matchState === 'pending').map((p) => p.id)).toEqual(['board-a_a1', 'board-b_b1']);
  });

  it('a copy on another board the same day joins the sightings without reopening a matched posting', async () => {
    const now = new Date(DAY0);
    await store(h.db, [posting('board-a', 'a1', now)], now, 'run-1');
    await markPostingsMatched(h.db, [{ id: 'board-a_a1', revision: 0 }]);
    const later = new Date(after(DAY0, 15));
    await store(h.db, [posting('board-b', 'b1', later)], later, 'run-2');
    const canonical = (await postingsCollection(h.db).doc('board-a_a1').get()).data()!;
    expect(canonical).toMatchObject({ matchState: 'matched', revision: 0 });
    expect(canonical.sightings?.map((s) => s.source)).toEqual(['board-a', 'board-b']);
    expect(canonical.repostedAt ?? null).toBeNull();
  });

  it('a board that links every job to one page keeps its jobs apart: that URL is no sign of identity', async () => {
    const now = new Date(DAY0);
    const frontPage = { url: 'https://board.example/jobs?utm_source=rss' };
    const jobs = ['React engineer', 'Go engineer', 'Designer'].map((title, i) =>
      posting('board-a', `g${i}`, now, { ...frontPage, title, description: `${title} wanted. Budget: $300` }),
    );
    const { created, duplicates } = await store(h.db, jobs, now, 'run-1');
    expect({ created, duplicates }).toEqual({ created: 3, duplicates: 0 });
    expect((await allPostings(h.db)).every((p) => p.matchState === 'pending')).toBe(true);
  });

  it('a canonical posting lists at most MAX_SIGHTINGS sources, so the document never grows with the data', async () => {
    const now = new Date(DAY0);
    for (let i = 0; i < MAX_SIGHTINGS + 3; i++) await store(h.db, [posting(`board-${i}`, `x${i}`, now)], now, `run-${i}`);
    const canonical = (await postingsCollection(h.db).doc('board-0_x0').get()).data()!;
    expect(canonical.sightings).toHaveLength(MAX_SIGHTINGS);
  });
});

describe('reopened postings', () => {
  beforeEach(async () => {
    h = await createHarness();
  });

  it('a run never closes a posting reopened after it loaded it: the reopened revision stays pending for the next run', async () => {
    const day0 = new Date(DAY0);
    await store(h.db, [posting('board-a', 'a1', day0)], day0, 'run-1');
    const loaded = await loadPendingPostings(h.db, { now: day0, retentionDays: 30, limit: 10 });
    expect(loaded.map((p) => [p.id, p.revision])).toEqual([['board-a_a1', 0]]);

    // While that run matches, a repost with a raised budget reopens it.
    const day9 = new Date(DAY9);
    const repost = posting('board-a', 'a2', day9, { budget: { amount: 600, currency: 'USD', kind: 'fixed' } });
    await store(h.db, [repost], day9, 'run-2');
    await markPostingsMatched(h.db, loaded);
    let canonical = (await postingsCollection(h.db).doc('board-a_a1').get()).data()!;
    expect(canonical).toMatchObject({ matchState: 'pending', revision: 1, budget: { amount: 600 }, previousBudget: { amount: 300 } });
    expect(canonical.repostedAt).toEqual(day9);

    // The next run loads revision 1 and closes it.
    const next = await loadPendingPostings(h.db, { now: day9, retentionDays: 30, limit: 10 });
    expect(next.map((p) => [p.id, p.revision])).toEqual([['board-a_a1', 1]]);
    await markPostingsMatched(h.db, next);
    canonical = (await postingsCollection(h.db).doc('board-a_a1').get()).data()!;
    expect(canonical.matchState).toBe('matched');
  });

  it("a shard's mark of a revision reopened since is not counted: every shard matches the reopened posting again", async () => {
    const day0 = new Date(DAY0);
    await store(h.db, [posting('board-a', 'a1', day0)], day0, 'run-1');
    const shard0 = { index: 0, count: 2 };
    const shard1 = { index: 1, count: 2 };
    const loaded = await loadPendingPostings(h.db, { now: day0, retentionDays: 30, limit: 10, shard: shard0 });
    await markPostingsMatched(h.db, loaded, shard0);
    const stale = await loadPendingPostings(h.db, { now: day0, retentionDays: 30, limit: 10, shard: shard1 });
    const day9 = new Date(DAY9);
    await store(h.db, [posting('board-a', 'a2', day9)], day9, 'run-2');
    await markPostingsMatched(h.db, stale, shard1);
    const canonical = (await postingsCollection(h.db).doc('board-a_a1').get()).data()!;
    expect(canonical).toMatchObject({ matchState: 'pending', revision: 1 });
    expect(canonical.matchedShards ?? []).toEqual([]);
  });

  it('concurrent marks by two shards of the same revision close the posting once both have marked it', async () => {
    const day0 = new Date(DAY0);
    await store(h.db, [posting('board-a', 'a1', day0)], day0, 'run-1');
    const shards = [0, 1].map((index) => ({ index, count: 2 }));
    const loaded = await Promise.all(shards.map((shard) => loadPendingPostings(h.db, { now: day0, retentionDays: 30, limit: 10, shard })));
    await Promise.all(shards.map((shard, i) => markPostingsMatched(h.db, loaded[i], shard)));
    const canonical = (await postingsCollection(h.db).doc('board-a_a1').get()).data()!;
    expect(canonical.matchState).toBe('matched');
    expect([...(canonical.matchedShards ?? [])].sort()).toEqual(['0-of-2', '1-of-2']);
  });
});
