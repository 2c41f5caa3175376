import { FieldValue, type DocumentData, type UpdateData } from 'firebase-admin/firestore';
import { DAY_MS } from '../store/timestamps';
import type { Budget, Posting } from './posting';
import { sightingToFirestore, type Sighting, type StoredPosting } from './postings-collection';

/**
 * Where a job was seen: the sightings a canonical posting lists, and what a copy found on another
 * source (or again on the same one) changes on it. Pure: store-postings.ts reads the canonical
 * posting, asks this, and writes the answer guarded by the version it read.
 */

/** Sources a canonical posting lists at most: the card names them all, and the document must not grow with the data. */
export const MAX_SIGHTINGS = 10;
/** A copy seen this long after the job was first seen is a repost, not another board's listing of the same post. */
export const REPOST_AFTER_DAYS = 3;
/** A source's name on a card is the operator's or the adapter's, not the data's; capped all the same, since sightings live on one document. */
const MAX_LABEL_CHARS = 100;

/** This posting's listing on its source, as a card names it. */
export const sightingOf = (posting: Posting, ctx: { now: Date; label: string }): Sighting => ({
  source: posting.source,
  label: ctx.label.slice(0, MAX_LABEL_CHARS),
  url: posting.url,
  seenAt: ctx.now,
});

const sameBudget = (a: Budget | null, b: Budget | null) =>
  a === b ||
  (!!a &&
    !!b &&
    a.amount === b.amount &&
    (a.maxAmount ?? null) === (b.maxAmount ?? null) &&
    a.currency === b.currency &&
    a.kind === b.kind);

/**
 * What a copy changes on its canonical posting: the copy's source joins the sightings (or, seen
 * there before, its entry points at the newer listing). A repost — seen REPOST_AFTER_DAYS after
 * the job was first seen, or on a source that listed it before under another id — or a changed
 * budget reopens matching: the posting is `pending` again with a new `revision`, so subscribers
 * it now fits (a raised budget meets their minimum, they joined since) are reached; those already
 * reached have their deliveries/{uid}_{canonicalId} and are not reached twice.
 */
export function sightingUpdate(
  canonical: StoredPosting,
  posting: Posting,
  sighting: Sighting,
  ctx: { now: Date; expireAt: Date },
): UpdateData<DocumentData> {
  const firstSeenAt = canonical.firstSeenAt ?? canonical.fetchedAt;
  // Postings stored before dedup carry no sightings: their own is rebuilt from what they hold.
  const sightings = canonical.sightings ?? [{ source: canonical.source, label: canonical.source, url: canonical.url, seenAt: firstSeenAt }];
  const before = sightings.find((s) => s.source === posting.source);
  const listed = before
    ? sightings.map((s) => (s === before ? { ...sighting, label: s.label || sighting.label } : s))
    : sightings.length < MAX_SIGHTINGS
      ? [...sightings, sighting]
      : sightings;
  // The same source listing it twice in one fetch is one listing shown twice, not a repost.
  const reposted =
    (before !== undefined && before.seenAt < ctx.now) || ctx.now.getTime() - firstSeenAt.getTime() >= REPOST_AFTER_DAYS * DAY_MS;
  const budgetChanged = posting.budget !== null && !sameBudget(canonical.budget, posting.budget);
  const update: UpdateData<DocumentData> = { sightings: listed.map(sightingToFirestore) };
  if (!reposted && !budgetChanged) return update;
  return {
    ...update,
    matchState: 'pending',
    matchedShards: FieldValue.delete(),
    revision: FieldValue.increment(1),
    // Listed again: kept as long as a new posting would be.
    expireAt: canonical.expireAt > ctx.expireAt ? canonical.expireAt : ctx.expireAt,
    ...(reposted
      ? {
          repostedAt: ctx.now,
          // Published again: the retention cutoff and the card go by the new listing.
          publishedAt: posting.publishedAt ?? ctx.now,
          url: posting.url ?? canonical.url,
        }
      : {}),
    ...(budgetChanged ? { budget: posting.budget, previousBudget: canonical.budget } : {}),
  };
}
