import { readMany } from '../store/create-documents';
import { decideDigest, dueSubscribers, notYetListed, readDigestRows } from '../claims/flush-due-digests';
import { decideClaim, readClaimedDigests, type ClaimCandidate } from '../claims/claim-deliveries';
import { deliveryId, readDeliveries, type Delivery } from '../ledger/delivery';
import { utcDay } from '../store/timestamps';
import type { FeedSource } from '../feeds/feed-source';
import type { Posting } from '../feeds/posting';
import { postingsCollection } from '../feeds/postings-collection';
import { refreshFeeds, type FeedReport } from '../feeds/refresh-feeds';
import { loadPendingPostings } from '../feeds/store-postings';
import { matchPostings } from '../matching/match-postings';
import { digestEmailKey, outboxCollection } from '../outbox/outbox-row';
import { listActiveSubscribers, subscribersCollection } from '../subscribers/subscriber';
import type { CycleDeps } from './cycle-deps';
import { ownsSubscriber, type Shard } from '../runtime/shard';

export type CyclePreview = {
  dryRun: true;
  runId: string;
  jobsFetched: number;
  jobsNew: number;
  users: number;
  matches: number;
  wouldSend: {
    alerts: number;
    alertItems: number;
    /** Items past an alert's MAX_ALERT_ITEMS, recorded as skipped. */
    alertItemsCapped: number;
    queued: number;
    digests: number;
    digestItems: number;
    outboxPending: number;
  };
  feeds: FeedReport[];
};

/**
 * ?dryRun=1: the same reads as a run, no writes at all — no lock, no run record, no feed
 * validators, no claims. What it reports is what a real run started now would do: it decides with
 * the run's own planners (decideClaim, decideDigest), so caps, opt-outs and the digest day agree.
 */
export async function previewCycle(
  deps: CycleDeps,
  input: { now: Date; sources: FeedSource[]; runId: string; shard?: Shard; postingsPerRun: number },
): Promise<CyclePreview> {
  const { db, config } = deps;
  const feeds = await refreshFeeds(deps, {
    sources: input.sources,
    now: input.now,
    runId: input.runId,
    retentionDays: config.RETENTION_DAYS,
    timeoutMs: config.FEED_TIMEOUT_MS,
    maxBytes: config.FEED_MAX_BYTES,
    allowPrivateAddresses: config.FEED_ALLOW_PRIVATE_ADDRESSES,
    maxNewPerSource: config.FEED_MAX_NEW_POSTINGS_PER_RUN,
    appUrl: config.APP_URL,
    dryRun: true,
  });
  const stored = await readMany(
    db,
    feeds.preview.map((p) => postingsCollection(db).doc(p.id)),
  );
  const unseen = capPerSource(
    feeds.preview.filter((_, i) => !stored[i].exists),
    config.FEED_MAX_NEW_POSTINGS_PER_RUN,
  );
  const pending = await loadPendingPostings(db, {
    now: input.now,
    retentionDays: config.RETENTION_DAYS,
    limit: input.postingsPerRun,
    shard: input.shard,
  });
  const postings = [...new Map([...pending, ...unseen].map((p) => [p.id, p])).values()].slice(0, input.postingsPerRun);
  // As in a run: no posting to match, no subscriber read.
  const subscribers = postings.length > 0 ? (await listActiveSubscribers(db)).filter((s) => ownsSubscriber(input.shard, s.id)) : [];
  const candidates = matchPostings(postings, subscribers) as ClaimCandidate[];
  const existing = await readDeliveries(
    db,
    candidates.map((c) => deliveryId(c.subscriber.id, c.posting.id)),
  );
  const fresh = new Map<string, ClaimCandidate[]>();
  for (const c of candidates) {
    if (existing.get(deliveryId(c.subscriber.id, c.posting.id))?.exists) continue;
    fresh.set(c.subscriber.id, [...(fresh.get(c.subscriber.id) ?? []), c]);
  }
  const claimedToday = await readClaimedDigests(db, {
    uids: [...fresh.values()].filter((items) => items[0].subscriber.mode === 'daily').map((items) => items[0].subscriber.id),
    now: input.now,
    digestHourUtc: config.DIGEST_HOUR_UTC,
  });

  const day = utcDay(input.now);
  const wouldSend = { alerts: 0, alertItems: 0, alertItemsCapped: 0, queued: 0, digests: 0, digestItems: 0, outboxPending: 0 };
  const dueBy = new Map<string, Delivery[]>();
  for (const [uid, items] of fresh) {
    const decision = decideClaim({
      fresh: items,
      mode: items[0].subscriber.mode,
      now: input.now,
      todaysDigestClaimed: claimedToday.has(uid),
    });
    wouldSend.alerts += decision.alert.length > 0 ? 1 : 0;
    wouldSend.alertItems += decision.alert.length;
    wouldSend.alertItemsCapped += decision.capped.length;
    wouldSend.queued += decision.queued.length;
    if (decision.digestDate === day)
      dueBy.set(
        uid,
        decision.queued.map((c) => asQueued(c, day, input)),
      );
  }

  if (input.now.getUTCHours() >= config.DIGEST_HOUR_UTC) {
    const held = new Set<string>();
    for await (const page of dueSubscribers(db, { day, shard: input.shard })) {
      const rows = await readDigestRows(db, page, day);
      for (const due of page) {
        // As the flush: items an earlier digest lists are that digest's; a subscriber whose digest today is claimed waits.
        if (rows.get(digestEmailKey(due.uid, day))) held.add(due.uid);
        dueBy.set(due.uid, [...(dueBy.get(due.uid) ?? []), ...notYetListed(due, rows).free]);
      }
    }
    for (const uid of held) dueBy.delete(uid);
    const uids = [...dueBy.keys()];
    const [rows, people] = await Promise.all([
      readMany(
        db,
        uids.map((uid) => outboxCollection(db).doc(digestEmailKey(uid, day))),
      ),
      readMany(
        db,
        uids.map((uid) => subscribersCollection(db).doc(uid)),
      ),
    ]);
    uids.forEach((uid, i) => {
      if (rows[i].exists) return;
      const subscriber = people[i].exists ? people[i].data()! : undefined;
      const { top } = decideDigest({ subscriber, due: dueBy.get(uid)!, uid, day, maxItems: config.DIGEST_MAX_ITEMS });
      wouldSend.digests += top.length > 0 ? 1 : 0;
      wouldSend.digestItems += top.length;
    });
  }
  wouldSend.outboxPending = (await outboxCollection(db).where('status', '==', 'pending').count().get()).data().count;

  return {
    dryRun: true,
    runId: input.runId,
    jobsFetched: feeds.fetched,
    jobsNew: unseen.length,
    users: subscribers.length,
    matches: candidates.length,
    wouldSend,
    feeds: feeds.feeds,
  };
}

/** The delivery a run would queue for this candidate, as the flush would then read it. */
const asQueued = (c: ClaimCandidate, digestDate: string, input: { runId: string; now: Date }): Delivery => ({
  uid: c.subscriber.id,
  jobId: c.posting.id,
  mode: 'daily',
  status: 'queued',
  score: c.score,
  reasons: c.reasons,
  emailKey: null,
  digestDate,
  reason: null,
  runId: input.runId,
  createdAt: input.now,
  sentAt: null,
  expireAt: input.now,
});

/** As a run stores them: at most `max` new postings from each source, the first in feed order. */
function capPerSource(postings: Posting[], max: number): Posting[] {
  const taken = new Map<string, number>();
  return postings.filter((p) => {
    const count = (taken.get(p.source) ?? 0) + 1;
    taken.set(p.source, count);
    return count <= max;
  });
}
