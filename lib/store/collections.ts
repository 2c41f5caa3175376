/**
 * Every Firestore collection Scout reads or writes, by name, in one place. The names are the
 * product's contract, not a detail: the data model (docs/design.md §4, README "Data model"), the TTL
 * policies set per collection group, firestore.indexes.json and stores already in use all spell
 * them so. Rename a key here if its meaning needs a better word; never a value.
 *
 * Each typed accessor (its converter and id function) stays next to its model and takes its name
 * from here, e.g. `subscribersCollection` in lib/subscribers/subscriber.ts.
 */
export const COLLECTIONS = {
  /** Subscribers, by base64url of the normalised address (lib/subscribers/subscriber.ts). */
  subscribers: 'users',
  /** Every active subscriber's match profile, packed into a few shards (lib/subscribers/match-index.ts). */
  matchIndex: 'matchIndex',
  /** Postings fetched from the feeds (lib/feeds/postings-collection.ts). */
  postings: 'jobs',
  /** Which stored posting is the one card for a job, by canonical URL or fingerprint (lib/feeds/posting-keys.ts). */
  postingKeys: 'postingKeys',
  /** The ledger: one document per subscriber and posting (lib/ledger/delivery.ts); also the first ledger's pages. */
  deliveries: 'deliveries',
  /** The outbox, by email key (lib/outbox/outbox-row.ts). */
  emails: 'emails',
  /** The channels' outbox: one row per subscriber, channel and delivery set (lib/messages/message-row.ts). */
  messages: 'messages',
  /** What each cycle did, by runId (lib/ledger/runs.ts). */
  runs: 'runs',
  /** Each feed's validators and health, by source (lib/feeds/feed-state.ts). */
  feedStates: 'feeds',
  /** Self-expiring locks of the cycle (lib/cycle/lock.ts). */
  locks: 'locks',
  /** Where a claim cut short, or the ledger migration, resumes; and the digest hour every flush has run with (lib/claims/digest-rows.ts). */
  cursors: 'cursors',
  /** Counters of the rate limits (lib/http/rate-limit.ts). */
  rateLimits: 'rateLimits',
  /** Open operator sessions (lib/admin/admin-sessions.ts). */
  adminSessions: 'adminSessions',
  /** A daily subscriber's keyword matches left out of a digest, and why, for its near-miss line (lib/ledger/near-misses.ts). */
  nearMisses: 'nearMisses',
  /** The model's verdict per subscriber and posting, scored once (lib/verdicts/match-verdict.ts). */
  matches: 'matches',
  /** Model tokens used per UTC day, against AI_DAILY_TOKEN_BUDGET (lib/verdicts/ai-usage.ts). */
  aiUsage: 'aiUsage',
  /** "Not a fit" from the email, per subscriber and posting, with a snapshot of the posting (lib/ledger/feedback.ts). */
  feedback: 'feedback',
  /** A source's OAuth2 token, encrypted, and the lease of its refresh (lib/feeds/upwork-token.ts). */
  sourceTokens: 'sourceTokens',
  /** One document, `current`: the store's schema version and the migration being applied (lib/ledger/migrations/). */
  schema: 'schema',
  /**
   * How Telegram's bot finds a channel (lib/subscriptions/channel-links.ts): `{sha256(start token)}`
   * → the subscriber and channel a start link binds (expireAt for the TTL policy), and
   * `chat_{chatId}` → the channels bound to a chat, which /stop removes.
   */
  channelLinks: 'channelLinks',
} as const;

export type CollectionKey = keyof typeof COLLECTIONS;
export type CollectionName = (typeof COLLECTIONS)[CollectionKey];
