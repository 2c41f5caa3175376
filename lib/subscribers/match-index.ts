import { FieldValue, type DocumentData, type Firestore, type Transaction, type WriteBatch } from 'firebase-admin/firestore';
import { ownsSubscriber, shardOf, type Shard } from '../runtime/shard';
import { readMany } from '../store/create-documents';
import { COLLECTIONS } from '../store/collections';
import { documentSize, FIRESTORE_LIMITS } from '../store/firestore-limits';
import { MAX_INLINE_ENTRY_BYTES, readIndexLayout } from './match-index-layout';
import { toDate } from '../store/timestamps';
import { parseQuery } from '../query/parse-query';
import { isKeywordQuery, rememberQuery, simpleFormOf } from '../query/subscriber-query';
import type { QueryNode } from '../query/query-tree';
import { WEEKDAYS, type Weekday } from './digest-schedule';
import type { ChannelKind, ChannelRoute } from '../channels/channel';
import { hasMinPay, MINIMUM_PAY_KINDS, minimumSchema, minPayOfLegacyBudget, NO_MIN_PAY, type MinPay } from '../pay/minimum-pay';
import {
  listActiveSubscribers,
  readSubscriberFields,
  subscriberId,
  subscribersCollection,
  type DeliveryMode,
  type Subscriber,
} from './subscriber';

/**
 * The match index: every active subscriber's match profile, packed into a few documents (its
 * shards; how many is the layout, match-index-layout.ts), so that a run reads a handful of
 * documents instead of one per subscriber.
 *
 *   matchIndex/{k}-of-{K}  { profiles: { [uid]: entry | null }, builtAt?, fullAt? }
 *
 * An entry is what matching, claiming and composing need of a subscriber (keywords and excludes,
 * or the query they wrote; pay minimums, mode, schedule, fit threshold, versions), packed as a short JSON string; `about`
 * is left out (500 characters a subscriber would fill a shard; the verdict stage reads users/ for
 * the few it judges). A profile longer than MAX_INLINE_ENTRY_BYTES (UTF-8, so a shard's size has a
 * bound whatever the script) is stored as null, "read users/{uid}": a few long profiles cost a read
 * each rather than push a shard towards 1 MiB.
 *
 * Kept in step: every write that changes a subscriber's status or profile writes their entry in
 * the same batch or transaction (`writeMatchProfile`, or `guardedSubscriberUpdate` which does it
 * for a guarded update), as a merge of one map key, so writers of different subscribers on one
 * shard never overwrite each other. The repair sweep (repair-match-index.ts) builds the index the
 * first time, checks it against users/ once a day and sets `builtAt` on every shard when a sweep
 * completes: until then (a new deployment, a new layout) runs read users/ as before. A shard that
 * refused an entry (a document past a production limit: too few shards for the subscribers) loses
 * `builtAt` and gets `fullAt` (match-index-refusal.ts): runs read users/ again, which is right if
 * costly, until a larger layout is built. The index is a cache of who to consider, never of who
 * may be emailed: the dispatcher re-reads the subscriber before every send, so a stale entry
 * cannot reach someone who opted out.
 *
 * `profiles` is exempt from indexing (firestore.indexes.json): a map keyed by uid would otherwise
 * cost two index entries per subscriber and pass the 40,000 a document may have.
 */

/** `scout status` warns past this share of the 1 MiB a document may hold: time to raise MATCH_INDEX_SHARDS. */
export const MATCH_INDEX_WARN_SHARE = 0.75;

export const matchIndexShardId = (k: number, count: number) => `${k}-of-${count}`;
export const matchIndexShardOf = (uid: string, count: number) => shardOf(uid, count);
export const matchIndexCollection = (db: Firestore) => db.collection(COLLECTIONS.matchIndex);
export const matchIndexShardRef = (db: Firestore, k: number, count: number) => matchIndexCollection(db).doc(matchIndexShardId(k, count));

/** What the index holds of a subscriber: the stored subscriber without `about` and the bookkeeping dates. */
export type IndexedSubscriber = Omit<
  Subscriber,
  'about' | 'createdAt' | 'confirmedAt' | 'updatedAt' | 'signupNonce' | 'expireAt' | 'channels'
>;

const MODE_CODES: Record<DeliveryMode, string> = { instant: 'i', daily: 'd', weekly: 'w', feed: 'f' };
const MODE_OF_CODE = Object.fromEntries(Object.entries(MODE_CODES).map(([mode, code]) => [code, mode])) as Record<string, DeliveryMode>;
const ALL_WEEKDAYS_MASK = (1 << WEEKDAYS.length) - 1;
/**
 * The first element of every entry: an entry in a format this code does not know reads as a
 * pointer to users/. Format 1 holds the pay minimum as one number, a fixed price in USD (or null);
 * format 2 holds every kind with its currency, `[[amount, currency] | null ×3]` in
 * MINIMUM_PAY_KINDS order. A profile format 1 can say is still written in it, so an instance of
 * the code before per-kind minimums reads it as before, and a migrated subscriber's entry is
 * unchanged; only minimums it cannot say make an entry format 2, which such an instance reads
 * as "read users/{uid}".
 */
const ENTRY_FORMAT = 1;
const ENTRY_FORMAT_MIN_PAY = 2;
/**
 * Format 3: a subscriber whose query is not their keyword lists' (one they wrote, docs/query.md)
 * holds its text in field 1 and null in field 2, with the minimums as format 2 holds them; the
 * lists are read back from the query (simpleFormOf). An instance from before queries reads it as
 * "read users/{uid}" and matches the lists stored there, the query's words: as near as it can.
 */
const ENTRY_FORMAT_QUERY = 3;

/** The old format's one number, when it says all of the minimums: none, or only a fixed price in USD. */
function legacyMinimum(minPay: MinPay): number | null | undefined {
  if (!hasMinPay(minPay)) return null;
  const { fixed, hourly, yearly } = minPay;
  return fixed && fixed.currency === 'USD' && !hourly && !yearly ? fixed.amount : undefined;
}

const packMinPay = (minPay: MinPay) =>
  MINIMUM_PAY_KINDS.map((kind) => (minPay[kind] ? [minPay[kind].amount, minPay[kind].currency] : null));

function unpackMinPay(format: number, field: unknown): MinPay | null {
  if (format === ENTRY_FORMAT) return field === null ? NO_MIN_PAY : typeof field === 'number' ? minPayOfLegacyBudget(field) : null;
  if (!Array.isArray(field) || field.length !== MINIMUM_PAY_KINDS.length) return null;
  const minPay: MinPay = { ...NO_MIN_PAY };
  for (const [i, kind] of MINIMUM_PAY_KINDS.entries()) {
    const packed: unknown = field[i];
    if (packed === null) continue;
    if (!Array.isArray(packed)) return null;
    const parsed = minimumSchema.safeParse({ amount: packed[0] as unknown, currency: packed[1] as unknown });
    if (!parsed.success) return null;
    minPay[kind] = parsed.data;
  }
  return minPay;
}

/**
 * Fields 7–12 (timezone, digest hour, weekdays, weekly day, feed token version, link version) at
 * their defaults: left out when trailing. The link version came last, where an entry written before
 * it holds the address (a string) or nothing: a number there is the link version, a string the
 * address of such an older entry (read as link version 0). An instance from before reads a new
 * entry that keeps its address as "read users/{uid}" (the address it finds does not match the uid).
 */
const TRAILING_DEFAULTS_FROM = 7;
const TRAILING_DEFAULTS: unknown[] = ['UTC', null, ALL_WEEKDAYS_MASK, 0, 0, 0];
const LINK_VERSION_FIELD = 12;
const fieldOr = (f: unknown[], i: number) => (i < f.length ? f[i] : TRAILING_DEFAULTS[i - TRAILING_DEFAULTS_FROM]);

const weekdayMask = (days: readonly Weekday[]) => days.reduce((mask, day) => mask | (1 << WEEKDAYS.indexOf(day)), 0);
const weekdaysOfMask = (mask: number) => WEEKDAYS.filter((_, i) => mask & (1 << i));

/** The profile as its index entry: a JSON array in a fixed order, the address only when it is not the uid's own. */
export function encodeProfile(s: IndexedSubscriber): string {
  const written = !isKeywordQuery(s);
  const legacy = written ? undefined : legacyMinimum(s.minPay);
  const fields: unknown[] = [
    written ? ENTRY_FORMAT_QUERY : legacy === undefined ? ENTRY_FORMAT_MIN_PAY : ENTRY_FORMAT,
    written ? s.query : s.keywords,
    written ? null : s.excludes,
    legacy === undefined ? packMinPay(s.minPay) : legacy,
    MODE_CODES[s.mode],
    s.profileVersion,
    s.fitThreshold,
    s.timezone,
    s.digestHour,
    weekdayMask(s.weekdays),
    WEEKDAYS.indexOf(s.weeklyDay),
    s.feedTokenVersion ?? 0,
    s.linkVersion ?? 0,
  ];
  const routes = packRoutes(s.routes);
  if (routes) fields.push(routes);
  // The id is base64url of the normalised address, so the address is almost always implied by it;
  // without one to keep, trailing fields at their defaults are left out (most subscribers keep them).
  if (s.email !== emailOfId(s.id)) fields.push(s.email);
  else
    while (
      fields.length > TRAILING_DEFAULTS_FROM &&
      fields[fields.length - 1] === TRAILING_DEFAULTS[fields.length - 1 - TRAILING_DEFAULTS_FROM]
    )
      fields.pop();
  return JSON.stringify(fields);
}

/**
 * Field 13, only for a subscriber with an active channel: `[[channelId, kind code, 1 instant | 2 digest], …]`.
 * An array, so the address after it (a string) is still found; an instance from before channels
 * ignores it, and creates no messages until it is replaced.
 */
const ROUTES_FIELD = 13;
const KIND_CODES: Record<ChannelKind, string> = { slack: 's', discord: 'd', telegram: 't', webhook: 'w' };
const KIND_OF_CODE = Object.fromEntries(Object.entries(KIND_CODES).map(([kind, code]) => [code, kind])) as Record<string, ChannelKind>;

const packRoutes = (routes: readonly ChannelRoute[] | undefined) =>
  routes && routes.length > 0 ? routes.map((r) => [r.id, KIND_CODES[r.kind], (r.instant ? 1 : 0) | (r.digest ? 2 : 0)]) : null;

function unpackRoutes(field: unknown): ChannelRoute[] {
  if (!Array.isArray(field)) return [];
  return field.flatMap((packed: unknown) => {
    if (!Array.isArray(packed) || typeof packed[0] !== 'string' || !KIND_OF_CODE[packed[1] as string]) return [];
    const flags = Number(packed[2]);
    return [{ id: packed[0], kind: KIND_OF_CODE[packed[1] as string], instant: (flags & 1) !== 0, digest: (flags & 2) !== 0 }];
  });
}

/** A written query's fields from its text, and its tree; null when it does not parse (read users/ instead). */
function writtenQueryOf(text: unknown): { fields: Pick<IndexedSubscriber, 'keywords' | 'excludes' | 'query'>; tree: QueryNode } | null {
  if (typeof text !== 'string') return null;
  const parsed = parseQuery(text);
  if (!parsed.ok) return null;
  const { keywords, excludes } = simpleFormOf(parsed.tree);
  return { fields: { keywords, excludes, query: text }, tree: parsed.tree };
}

const emailOfId = (id: string) => Buffer.from(id, 'base64url').toString('utf8');

/** An entry back as the subscriber it describes; null when it is not one this code wrote (read users/ instead). */
export function decodeProfile(uid: string, entry: string): IndexedSubscriber | null {
  try {
    const f = JSON.parse(entry) as unknown[];
    if (!Array.isArray(f) || ![ENTRY_FORMAT, ENTRY_FORMAT_MIN_PAY, ENTRY_FORMAT_QUERY].includes(f[0] as number)) return null;
    if (!MODE_OF_CODE[f[4] as string]) return null;
    const minPay = unpackMinPay(f[0] === ENTRY_FORMAT_QUERY ? ENTRY_FORMAT_MIN_PAY : (f[0] as number), f[3]);
    if (!minPay) return null;
    const written = f[0] === ENTRY_FORMAT_QUERY ? writtenQueryOf(f[1]) : null;
    if (f[0] === ENTRY_FORMAT_QUERY && !written) return null;
    const query = written?.fields ?? { keywords: f[1] as string[], excludes: f[2] as string[] };
    const linkVersion = typeof f[LINK_VERSION_FIELD] === 'number' ? f[LINK_VERSION_FIELD] : 0;
    const stated = f.slice(LINK_VERSION_FIELD).find((field) => typeof field === 'string');
    const email = typeof stated === 'string' ? stated : emailOfId(uid);
    if (subscriberId(email) !== uid) return null;
    const weekdays = weekdaysOfMask(Number(fieldOr(f, 9)) & ALL_WEEKDAYS_MASK);
    const routes = unpackRoutes(f[ROUTES_FIELD]);
    const subscriber: IndexedSubscriber = {
      id: uid,
      email,
      ...query,
      minPay,
      mode: MODE_OF_CODE[f[4] as string],
      profileVersion: f[5] as number,
      fitThreshold: f[6] as number,
      status: 'active',
      timezone: fieldOr(f, 7) as string,
      digestHour: fieldOr(f, 8) as number | null,
      weekdays: weekdays.length > 0 ? weekdays : [...WEEKDAYS],
      weeklyDay: WEEKDAYS[fieldOr(f, 10) as number] ?? WEEKDAYS[0],
      feedTokenVersion: fieldOr(f, 11) as number,
      linkVersion,
      ...(routes.length > 0 ? { routes } : {}),
    };
    // Parsed once here: the run's matching pass finds the tree instead of parsing the text again.
    if (written) rememberQuery(subscriber, written.tree);
    return subscriber;
  } catch {
    return null;
  }
}

/** A stored entry: the packed profile, or null for "too long to inline: read users/{uid}". */
export type IndexEntry = string | null;

/** The entry a subscriber document calls for: none (absent from the index) unless they are active. */
export function entryFor(subscriber: IndexedSubscriber | null | undefined): IndexEntry | undefined {
  if (!subscriber || subscriber.status !== 'active') return undefined;
  const entry = encodeProfile(subscriber);
  return Buffer.byteLength(entry, 'utf8') <= MAX_INLINE_ENTRY_BYTES ? entry : null;
}

/** The entry of a document as stored (raw fields, as an update or a create writes them); undefined when it has none. */
export function entryForStored(uid: string, data: DocumentData | undefined): IndexEntry | undefined {
  return data ? entryFor(readSubscriberFields(uid, data)) : undefined;
}

type Writer = WriteBatch | Transaction;

/**
 * Puts one subscriber's entry (or its absence) in their shard, in the caller's batch or
 * transaction, so it lands with the subscriber's own write or not at all. A merge of one map key:
 * writers of other subscribers on the same shard are untouched. Writes nothing when the entry the
 * caller read (`before`) is already the one called for, so saves that change nothing of the
 * profile, and signups that stay pending, cost no index write. `layouts`: the layout in force, and
 * the one being built if any (match-index-layout.ts). Answers whether it wrote.
 */
export function writeMatchProfile(
  writer: Writer,
  db: Firestore,
  uid: string,
  change: { before: IndexEntry | undefined; after: IndexEntry | undefined; layouts: number[] },
): boolean {
  if (change.before === change.after || change.layouts.length === 0) return false;
  const value = change.after === undefined ? FieldValue.delete() : change.after;
  for (const count of change.layouts)
    (writer as WriteBatch).set(
      matchIndexShardRef(db, matchIndexShardOf(uid, count), count),
      { profiles: { [uid]: value } },
      { merge: true },
    );
  return true;
}

/** A shard as read: its entries, whether a completed sweep has vouched for it, and when it last refused an entry. */
export type IndexShard = { k: number; profiles: Map<string, IndexEntry>; builtAt: Date | null; fullAt: Date | null; bytes: number };

/** The shards a run reads: all of them, or, when the run's shard count divides K, only those whose subscribers it owns. */
export function shardsToRead(shard: Shard | undefined, count: number): number[] {
  const all = Array.from({ length: count }, (_, k) => k);
  // sha256 % K % n = sha256 % n when n divides K: index shard k holds only run shard k % n's subscribers.
  if (!shard || count % shard.count !== 0) return all;
  return all.filter((k) => k % shard.count === shard.index);
}

export async function readIndexShards(db: Firestore, ks: number[], count: number): Promise<IndexShard[]> {
  const snaps = await readMany(
    db,
    ks.map((k) => matchIndexShardRef(db, k, count)),
  );
  return snaps.map((snap, i) => {
    const data = snap.data() ?? {};
    const profiles = new Map<string, IndexEntry>(Object.entries((data.profiles ?? {}) as Record<string, IndexEntry>));
    return {
      k: ks[i],
      profiles,
      builtAt: toDate(data.builtAt),
      fullAt: toDate(data.fullAt),
      bytes: snap.exists ? documentSize(COLLECTIONS.matchIndex, snap.id, data) : 0,
    };
  });
}

/** How full a shard is, as a share of what a document may hold. */
export const shardFullness = (shard: Pick<IndexShard, 'bytes'>) => shard.bytes / FIRESTORE_LIMITS.documentBytes;

/** Where a run's subscribers came from: the index, or (not built yet) users/ as before it existed. */
export type ActiveSubscribers = { subscribers: IndexedSubscriber[]; from: 'index' | 'users'; pointers: number };

/** Every shard of a layout, in order. */
export const allIndexShards = (count: number) => Array.from({ length: count }, (_, k) => k);

/**
 * The active subscribers a run (or one shard of a run) matches against: from the index once a
 * sweep has built it — the layout's cursor, the shards (K, or K ÷ n for a cron shard of n), plus
 * one read per entry too long to inline — otherwise from users/, one read per active subscriber.
 */
export async function readActiveSubscribers(db: Firestore, shard: Shard | undefined): Promise<ActiveSubscribers> {
  const count = (await readIndexLayout(db)).shards;
  const shards = await readIndexShards(db, shardsToRead(shard, count), count);
  if (shards.some((s) => !s.builtAt)) {
    const subscribers = (await listActiveSubscribers(db)).filter((s) => ownsSubscriber(shard, s.id));
    return { subscribers, from: 'users', pointers: 0 };
  }
  const subscribers: IndexedSubscriber[] = [];
  const pointers: string[] = [];
  for (const { profiles } of shards) {
    for (const [uid, entry] of profiles) {
      if (!ownsSubscriber(shard, uid)) continue;
      const profile = entry === null ? null : decodeProfile(uid, entry);
      if (profile) subscribers.push(profile);
      else pointers.push(uid);
    }
  }
  const read = await readMany(
    db,
    pointers.map((uid) => subscribersCollection(db).doc(uid)),
  );
  for (const snap of read) {
    const subscriber = snap.data();
    if (subscriber?.status === 'active') subscribers.push(subscriber);
  }
  return { subscribers, from: 'index', pointers: pointers.length };
}
