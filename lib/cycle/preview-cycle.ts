import { readMany } from '../ledger/create-documents';
import { deliveriesCollection, deliveryPageId, pageDayOf, readPages } from '../ledger/delivery';
import { utcDay } from '../ledger/timestamps';
import type { FeedSource } from '../feeds/feed-source';
import { postingsCollection, type StoredPosting } from '../feeds/postings-collection';
import { refreshFeeds, type FeedReport } from '../feeds/refresh-feeds';
import { loadPendingPostings } from '../feeds/store-postings';
import { matchPostings } from '../matching/match-postings';
import { digestEmailKey, outboxCollection } from '../outbox/outbox-row';
import { listActiveSubscribers } from '../subscribers/subscriber';
import type { CycleDeps } from './cycle-deps';
import { ownsSubscriber, type Shard } from './shard';

export type CyclePreview = {
  dryRun: true;
  runId: string;
  jobsFetched: number;
  jobsNew: number;
  users: number;
  matches: number;
  wouldSend: { alerts: number; alertItems: number; queued: number; digests: number; outboxPending: number };
  feeds: FeedReport[];
};

/**
 * ?dryRun=1: the same reads as a run, no writes at all — no lock, no run record, no feed
 * validators, no claims. What it reports is what a real run started now would send.
 */
export async function previewCycle(
  deps: CycleDeps,
  input: { now: Date; sources: FeedSource[]; runId: string; shard?: Shard },
): Promise<CyclePreview> {
  const { db, config } = deps;
  const feeds = await refreshFeeds(deps, {
    sources: input.sources,
    now: input.now,
    runId: input.runId,
    retentionDays: config.RETENTION_DAYS,
    timeoutMs: config.FEED_TIMEOUT_MS,
    maxBytes: config.FEED_MAX_BYTES,
    appUrl: config.APP_URL,
    dryRun: true,
  });
  const stored = await readMany(
    db,
    feeds.preview.map((p) => postingsCollection(db).doc(p.id)),
  );
  const unseen = feeds.preview.filter((_, i) => !stored[i].exists);
  const pending = await loadPendingPostings(db, { now: input.now, retentionDays: config.RETENTION_DAYS, limit: 2_000, shard: input.shard });
  const byId = new Map([...pending, ...unseen].map((p) => [p.id, p]));
  const subscribers = (await listActiveSubscribers(db)).filter((s) => ownsSubscriber(input.shard, s.id));
  const candidates = matchPostings([...byId.values()], subscribers);
  // A posting not stored yet would land on today's page.
  const pageOf = (c: (typeof candidates)[number]) =>
    deliveryPageId(c.subscriber.id, 'fetchedAt' in c.posting ? pageDayOf(c.posting as StoredPosting) : utcDay(input.now));
  const pages = await readPages(db, candidates.map(pageOf));
  const unclaimed = candidates.filter((c) => !pages.get(pageOf(c))?.page?.deliveries[c.posting.id]);
  const instant = unclaimed.filter((c) => c.subscriber.mode === 'instant');

  let digests = 0;
  if (input.now.getUTCHours() >= config.DIGEST_HOUR_UTC) {
    const day = utcDay(input.now);
    const due = await deliveriesCollection(db).where('pendingDigest', '<=', day).select('uid').get();
    const uids = [...new Set(due.docs.map((d) => d.get('uid') as string))].filter((uid) => ownsSubscriber(input.shard, uid));
    const rows = await readMany(
      db,
      uids.map((uid) => outboxCollection(db).doc(digestEmailKey(uid, day))),
    );
    digests = rows.filter((r) => !r.exists).length;
  }
  const outboxPending = (await outboxCollection(db).where('status', '==', 'pending').count().get()).data().count;

  return {
    dryRun: true,
    runId: input.runId,
    jobsFetched: feeds.fetched,
    jobsNew: unseen.length,
    users: subscribers.length,
    matches: candidates.length,
    wouldSend: {
      alerts: new Set(instant.map((c) => c.subscriber.id)).size,
      alertItems: instant.length,
      queued: unclaimed.length - instant.length,
      digests,
      outboxPending,
    },
    feeds: feeds.feeds,
  };
}
