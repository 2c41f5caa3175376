import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Timestamp } from 'firebase-admin/firestore';
import { afterAll, describe, expect, it } from 'vitest';
import { allShardTags, MAX_SHARDS } from '../../lib/runtime/shard';
import { emptyRunStats, newRunId } from '../../lib/ledger/runs';
import { postingConverter, type Sighting, type StoredPosting } from '../../lib/feeds/postings-collection';
import { MAX_SIGHTINGS } from '../../lib/feeds/store-postings';
import { toPosting } from '../../lib/feeds/to-posting';
import { MAX_DESCRIPTION, postingId, type Posting } from '../../lib/feeds/posting';
import { MAX_ALERT_ITEMS } from '../../lib/claims/claim-deliveries';
import { MAX_PASS_POSTINGS, passKey } from '../../lib/claims/claim-cursor';
import { deliveryConverter, deliveryId, type Delivery } from '../../lib/ledger/delivery';
import { shardBucketOf } from '../../lib/runtime/shard';
import { checkDocumentLimits, FIRESTORE_LIMITS, parseFieldPath, type IndexConfig } from '../../lib/store/firestore-limits';
import { addDays, utcDay } from '../../lib/store/timestamps';
import { HEALTH_RULES } from '../../lib/feeds/source-health';
import {
  composeDailyDigest,
  composeInstantAlert,
  composeWelcome,
  type MailSettings,
  type ScoredPosting,
} from '../../lib/mail/compose-email';
import { composeWithinBudget } from '../../lib/mail/email-budget';
import { scorePosting } from '../../lib/matching/score-posting';
import {
  alertEmailKey,
  digestEmailKey,
  manualDigestEmailKey,
  newOutboxRow,
  outboxRowConverter,
  packPayload,
  welcomeEmailKey,
} from '../../lib/outbox/outbox-row';
import { WELCOME_MAX_ITEMS } from '../../lib/subscriptions/welcome';
import { MAX_ABOUT_LENGTH, MAX_EXCLUDES, MAX_KEYWORD_LENGTH, MAX_KEYWORDS } from '../../lib/subscribers/preference-fields';
import {
  minPayOfSubscriberInput,
  subscriberConverter,
  subscriberId,
  subscriberInputSchema,
  type Subscriber,
} from '../../lib/subscribers/subscriber';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';
import { configSchema } from '../../lib/runtime/config';
import { matchId, matchVerdictConverter, type MatchVerdict } from '../../lib/verdicts/match-verdict';
import { MAX_REASON_LENGTH, PROMPT_VERSION } from '../../lib/verdicts/wire';
import { feedbackConverter, feedbackId, notAFitFeedback } from '../../lib/ledger/feedback';
import {
  CHANNEL_KINDS,
  CHANNEL_STATUSES,
  MAX_CHANNELS,
  newChannelId,
  type Channel,
  type ChannelKind,
  type ChannelRoute,
} from '../../lib/channels/channel';
import { messageRowConverter, type MessageRow } from '../../lib/messages/message-row';
import { MESSAGE_MAX_ATTEMPTS } from '../../lib/messages/message-rules';
import type { MessageItem, PlannedMessage } from '../../lib/messages/plan-messages';
import { subscriberMessagesOf } from '../../lib/messages/subscriber-messages';

/**
 * docs/design.md §2.11: production refuses a document over 1 MiB or 40,000 index entries; the emulator
 * refuses neither, so every other test would pass on a design that fails in production. Here the
 * largest document each code path can write is built with the real builders and converters and
 * measured with Firestore's documented formulas (lib/ledger/firestore-limits.ts) against the real
 * firestore.indexes.json. "Room to spare" is half of each limit.
 */

const indexConfig = JSON.parse(readFileSync(join(__dirname, '../../firestore.indexes.json'), 'utf8')) as IndexConfig;
const SPARE = 0.5;

const now = new Date('2026-11-30T08:00:00Z');
const day = utcDay(now);
const runId = newRunId(now);
const expireAt = addDays(now, 30);
const settings: MailSettings = { appUrl: 'https://scout.example.com', from: 'Scout <alerts@example.com>', linkSecret: 'l'.repeat(44) };

// ── The worst case each cap allows ───────────────────────────────────────────────────────────────
// Text is CJK: 3 UTF-8 bytes per UTF-16 unit, the most a length cap in characters lets through.
const wide = (seed: number, length: number) => String.fromCodePoint(0x4e00 + (seed % 20_000)).repeat(length);
/** The longest address there can be (254): its uid, base64url, is the longest id Scout builds keys from. */
const longestEmail = `${'l'.repeat(64)}@${'d'.repeat(63)}.${'o'.repeat(63)}.${'m'.repeat(56)}.test`;
const longestUid = subscriberId(longestEmail);
/** A source name at its cap (feed-source.ts: 64), so posting ids are as long as they get. */
const longestSource = 's'.repeat(64);
/** The most DIGEST_MAX_ITEMS may be set to (config.ts); checked below. */
const DIGEST_MAX_ITEMS = 100;

/** Through the real schema, so a cap changed there changes the fixture (or fails it). */
const broadestPreferences = subscriberInputSchema.parse({
  email: longestEmail,
  keywords: Array.from({ length: MAX_KEYWORDS }, (_, i) => wide(i, MAX_KEYWORD_LENGTH)),
  excludes: Array.from({ length: MAX_EXCLUDES }, (_, i) => wide(1_000 + i, MAX_KEYWORD_LENGTH)),
  // Every kind of minimum, each in a currency of its own: the widest pay an index entry packs.
  minPay: {
    fixed: { amount: 9_999_999.99, currency: 'USD' },
    hourly: { amount: 9_999_999.99, currency: 'EUR' },
    yearly: { amount: 9_999_999.99, currency: 'GBP' },
  },
  mode: 'daily',
  // The longest "about" there is, in the widest characters (4 UTF-8 bytes each).
  about: '\u{1F600}'.repeat(MAX_ABOUT_LENGTH),
  fitThreshold: 100,
});
const broadestSubscriber: Subscriber = {
  id: longestUid,
  ...broadestPreferences,
  minPay: minPayOfSubscriberInput(broadestPreferences),
  about: broadestPreferences.about!,
  fitThreshold: broadestPreferences.fitThreshold!,
  profileVersion: Number.MAX_SAFE_INTEGER,
  status: 'active',
  timezone: 'UTC',
  digestHour: null,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
  feedTokenVersion: 1_000_000,
  createdAt: now,
  confirmedAt: now,
  updatedAt: now,
};

/**
 * The largest posting a feed item can become (to-posting.ts caps each field), its description
 * carrying every keyword so scorePosting gives the most reasons there are (each keyword + budget).
 */
function largestPosting(n: number): Posting {
  const keywords = broadestPreferences.keywords.join(' ');
  const posting = toPosting(
    {
      guid: `${wide(n, 5_000)}`,
      title: { value: wide(n, 10_000), html: false },
      link: `https://example.com/${n}/${'p'.repeat(3_000)}`.slice(0, 2_048),
      description: { value: `${keywords} ${wide(n + 1, 100_000)}`, html: false },
      categories: Array.from({ length: 100 }, (_, i) => wide(n + i, 60)),
      published: now.toISOString(),
      scout: { budget: { amount: 10_000_000, currency: 'USD', kind: 'fixed' } },
      // The employer and the place a job board's feed states, past their cap (to-posting.ts keeps 200).
      job: { company: wide(n + 2, 1_000), place: wide(n + 3, 1_000), remote: true, skills: [], type: null },
    },
    { source: longestSource, baseUrl: null },
  )!;
  return { ...posting, budget: posting.budget ?? { amount: 10_000_000, currency: 'USD', kind: 'fixed' } };
}

function scored(posting: Posting): ScoredPosting {
  const verdict = scorePosting(broadestSubscriber, posting);
  if (!verdict.matched) throw new Error(`fixture posting does not match: ${verdict.reason}`);
  // With the verdict stage on, each item also shows the model's reason at its cap.
  return { posting, score: verdict.score, reasons: verdict.reasons, fit: 100, fitReason: wide(11, MAX_REASON_LENGTH), aiFallback: null };
}

/** One card per real job at its caps: MAX_SIGHTINGS sources, each with a label at its cap and a link at 2,048 characters. */
const largestSightings = (n: number): Sighting[] =>
  Array.from({ length: MAX_SIGHTINGS }, (_, i) => ({
    source: `${longestSource.slice(0, -3)}${String(i).padStart(3, '0')}`,
    label: wide(n + i, 100),
    url: `https://example.com/${n}/${i}/${'s'.repeat(3_000)}`.slice(0, 2_048),
    seenAt: now,
  }));
const withHistory = (posting: Posting): StoredPosting => ({
  ...posting,
  matchState: 'pending',
  runId,
  fetchedAt: now,
  expireAt,
  canonicalId: posting.id,
  revision: Number.MAX_SAFE_INTEGER,
  firstSeenAt: now,
  sightings: largestSightings(posting.title.length),
  repostedAt: now,
  previousBudget: { amount: 10_000_000, currency: 'USD', kind: 'fixed', maxAmount: 10_000_000 },
});
const postings = Array.from({ length: DIGEST_MAX_ITEMS }, (_, n) => withHistory(largestPosting(n)));
const matches = postings.map(scored);

// ── The largest document of each collection ──────────────────────────────────────────────────────
type Specimen = { collection: string; what: string; id: string; data: Record<string, unknown> };

const storedPosting: StoredPosting = {
  ...postings[0],
  // Every tag of every shard count a caller can use (a posting matched under several counts keeps them all).
  matchedShards: Array.from({ length: MAX_SHARDS }, (_, i) => allShardTags(i + 1)).flat(),
  runId,
  fetchedAt: now,
  expireAt,
};

const largestDelivery: Delivery = {
  uid: longestUid,
  jobId: postings[0].id,
  mode: 'daily',
  status: 'skipped',
  score: matches[0].score,
  reasons: matches[0].reasons,
  // The verdict stage's fields at their caps: a reason of MAX_REASON_LENGTH three-byte characters.
  fit: 100,
  fitReason: wide(9, MAX_REASON_LENGTH),
  aiFallback: 'server-error',
  emailKey: manualDigestEmailKey(longestUid, now),
  digestDate: day,
  // Closed after it was queued: it keeps when it was due and its shard bucket.
  digestDueAt: now,
  shardBucket: shardBucketOf(longestUid),
  reason: 'subscriber_unsubscribed',
  runId,
  createdAt: now,
  sentAt: now,
  expireAt,
};

// With postings at every cap (2,048-character links, 26 reasons quoting 60-character keywords, CJK
// text) an item costs ~19 KB of html and text: the 100-item digest DIGEST_MAX_ITEMS allows would
// be ~1.9 MB. The claim and the flush compose through composeWithinBudget, as here, so the row
// carries the best items that fit MAX_EMAIL_BYTES and lists only those.
const digest = await composeWithinBudget(matches, (items, leftOut) =>
  composeDailyDigest({
    subscriber: broadestSubscriber,
    items,
    moreCount: 10_000 + leftOut,
    day,
    filteredOut: { underMinBudget: 100_000, excluded: 100_000, notAFit: 100_000, minPay: minPayOfSubscriberInput(broadestPreferences) },
    settings,
    now,
  }),
);
const digestRow = newOutboxRow({
  uid: longestUid,
  kind: 'digest',
  deliveryIds: postings.slice(0, digest.shown).map((p) => deliveryId(longestUid, p.id)),
  payload: digest.payload,
  runId,
  now,
  expireAt,
});
const alert = await composeWithinBudget(matches.slice(0, MAX_ALERT_ITEMS), (items) =>
  composeInstantAlert({ subscriber: broadestSubscriber, items, settings, now }),
);
const alertRow = newOutboxRow({
  uid: longestUid,
  kind: 'alert',
  deliveryIds: postings.slice(0, alert.shown).map((p) => deliveryId(longestUid, p.id)),
  payload: alert.payload,
  runId,
  now,
  expireAt,
});
const welcome = await composeWithinBudget(matches.slice(0, WELCOME_MAX_ITEMS), (items) =>
  composeWelcome({
    subscriber: broadestSubscriber,
    items,
    windowDays: 7,
    nextEmail:
      'Your next weekly digest comes on Wednesday 30 September at 23:00 America/Argentina/ComodRivadavia, with what Scout finds until then.',
    settings,
    now,
  }),
);
// newSignupNonce: 16 random bytes in base64url.
const welcomeNonce = 'n'.repeat(22);
const welcomeRow = newOutboxRow({
  uid: longestUid,
  kind: 'welcome',
  deliveryIds: postings.slice(0, welcome.shown).map((p) => deliveryId(longestUid, p.id)),
  payload: welcome.payload,
  runId,
  now,
  expireAt,
});

/** What the dispatcher and an operator add to a row over its life: a lease, a provider batch, retries. */
function afterItsLife(row: ReturnType<typeof newOutboxRow>, emailKey: string) {
  const batchMembers = Array.from({ length: 100 }, (_, i) => (i === 0 ? emailKey : digestEmailKey(`${longestUid.slice(0, -3)}${i}`, day)));
  return {
    ...outboxRowConverter.toFirestore({
      ...row,
      status: 'dead',
      attempts: 20,
      leaseOwner: runId,
      leaseUntil: now,
      lastError: 'e'.repeat(500),
      providerId: 'p'.repeat(64),
      batchKey: `batch_${'b'.repeat(20)}`,
      batchMembers,
      firstAttemptAt: now,
      sentAt: now,
    }),
    // retry-email.ts: one entry per operator retry of a dead row (each needs the row to die again first).
    retries: 20,
    retriedAt: Timestamp.fromDate(now),
    retryHistory: Array.from({ length: 20 }, (_, i) => ({
      at: Timestamp.fromMillis(now.getTime() + i),
      lastError: 'e'.repeat(500),
      attempts: 20,
    })),
  };
}

/** A scored verdict with the longest reason kept (wire.ts caps it) and the longest model id config allows. */
const largestMatch: MatchVerdict = {
  uid: longestUid,
  jobId: postings[0].id,
  state: 'scored',
  fit: 100,
  reason: wide(7, MAX_REASON_LENGTH),
  model: 'm'.repeat(200),
  promptVersion: PROMPT_VERSION,
  profileVersion: Number.MAX_SAFE_INTEGER,
  leaseUntil: now,
  runId,
  createdAt: now,
  scoredAt: now,
  expireAt,
};

/** "Not a fit" on the largest posting there is: the snapshot's caps, not the posting's, decide its size. */
const largestFeedback = notAFitFeedback({ uid: longestUid, posting: postings[0], now, retentionDays: 30 });

const FEEDS_IN_A_RUN = 500;
const feedResult = (i: number) => ({ source: `${'f'.repeat(60)}${String(i).padStart(4, '0')}`, status: 'error', error: 'e'.repeat(500) });
/** runs/{runId} as recordRunStart and recordRunEnd (runs.ts) leave it between them. */
function runRecord(feeds: number) {
  const {
    runId: _id,
    partial,
    quota,
    durationMs,
    errors,
    ...stats
  } = {
    ...emptyRunStats(runId, 'cron', `${MAX_SHARDS - 1}-of-${MAX_SHARDS}`),
    phases: { fetch: 1, match: 1, claim: 1, flush: 1, dispatch: 1 },
    // The channels' dispatch, every figure at its widest and every kind present.
    channels: {
      sent: 1e12,
      failed: 1e12,
      dead: 1e12,
      skipped: 1e12,
      retried: 1e12,
      disabled: 1e12,
      byChannel: Object.fromEntries(CHANNEL_KINDS.map((kind: ChannelKind) => [kind, { sent: 1e12, failed: 1e12 }])),
    },
    feeds: Array.from({ length: feeds }, (_, i) => feedResult(i)),
    quota: { period: 'daily', reachedAt: now, resumesAt: now, error: 'q'.repeat(500) },
    errors: ['e'.repeat(2_000)],
  };
  return {
    trigger: 'cron',
    shard: `${MAX_SHARDS - 1}-of-${MAX_SHARDS}`,
    status: 'failed',
    startedAt: now,
    expireAt,
    stats,
    partial,
    quota,
    durationMs,
    errors,
    finishedAt: now,
  };
}

// ── Channels: a subscriber's at their largest, and the largest message each kind gets ─────────────

/**
 * The longest destination the rules allow. lib/channels/destination.ts (not on this branch yet) is
 * assumed to cap a URL as typed at 2,048 characters and to store `new URL(typed).href`: the WHATWG
 * parser percent-encodes every non-ASCII character of a path (a CJK character becomes 9
 * characters), so the URL stored may be up to 9 times the cap. Built the same way here.
 */
const MAX_DESTINATION_LENGTH = 2_048;
function longestDestination(n: number): string {
  const head = `https://${'h'.repeat(63)}.example.com/${n}/`;
  return new URL(`${head}${wide(300 + n, MAX_DESTINATION_LENGTH - head.length)}`).href;
}

/**
 * MAX_CHANNELS webhooks (the kind with the longest destination and the only one with a secret),
 * each with every optional field set: a verifying channel's code hash and expiry, its tries, a
 * disabled one's reason. Their states differ, so `channelStates` holds as many as it can.
 */
const largestChannels: Channel[] = Array.from({ length: MAX_CHANNELS }, (_, i) => ({
  id: newChannelId(),
  kind: 'webhook',
  status: CHANNEL_STATUSES[i % CHANNEL_STATUSES.length],
  instant: true,
  digest: true,
  destination: longestDestination(i),
  // destination.ts cuts a webhook's label at 80 characters; a Telegram chat's title is at most 128.
  label: wide(400 + i, 128),
  // `whsec_` and 32 random bytes in base64 (the webhook transport's new secret).
  secret: `whsec_${'s'.repeat(44)}`,
  // sha256 hex of the code sent or of the Telegram start token.
  verifyHash: 'v'.repeat(64),
  verifyExpiresAt: now,
  verifyTries: 1_000_000,
  createdAt: now,
  verifiedAt: now,
  disabledAt: now,
  // `gone: ` and the platform's error, assumed at most 500 characters like an email's lastError.
  disabledReason: `gone: ${'e'.repeat(500)}`,
}));

/** A route of every kind, each taking alerts and the digest: planMessages renders one message per route. */
const channelRoutes = CHANNEL_KINDS.map((kind) => ({ id: newChannelId(), kind, instant: true, digest: true }));
const subscriberMessages = subscriberMessagesOf({ settings, runId, now, expireAt })({
  id: longestUid,
  linkVersion: Number.MAX_SAFE_INTEGER,
  routes: channelRoutes,
})!;
const messageItems: MessageItem[] = postings.map((posting, i) => ({
  posting,
  score: matches[i].score,
  reasons: matches[i].reasons,
  fit: matches[i].fit,
}));
const idsOf = (count: number) => postings.slice(0, count).map((p) => deliveryId(longestUid, p.id));
// An instant channel's alert carries the claim's alert items (at most MAX_ALERT_ITEMS); a digest
// channel's, the items its email lists (flush-subscribers.ts): here all DIGEST_MAX_ITEMS, more than
// any email at these caps lists, so each format is measured at its own bound, not the email's.
const plannedMessages: PlannedMessage[] = [
  ...subscriberMessages.alert(
    messageItems.slice(0, MAX_ALERT_ITEMS),
    idsOf(MAX_ALERT_ITEMS),
    alertEmailKey(longestUid, idsOf(MAX_ALERT_ITEMS)),
  ),
  ...subscriberMessages.digest(messageItems, idsOf(DIGEST_MAX_ITEMS), digestEmailKey(longestUid, day), day, 10_000),
];
/** Each kind's largest body, of its alert and its digest. */
const largestMessages = CHANNEL_KINDS.map((kind) =>
  plannedMessages
    .filter((m) => m.row.channel === kind)
    .reduce((a, b) => (Buffer.byteLength(b.row.body!) > Buffer.byteLength(a.row.body!) ? b : a)),
);

/** What the dispatcher adds to a row before it is final (a final row drops its body): a lease, its tries, the last error, the platform's id. */
function messageAfterItsLife(row: MessageRow) {
  return messageRowConverter.toFirestore({
    ...row,
    status: 'sending',
    attempts: MESSAGE_MAX_ATTEMPTS[row.channel],
    leaseOwner: runId,
    leaseUntil: now,
    notBefore: now,
    lastError: 'e'.repeat(500),
    detail: 'd'.repeat(64),
    firstAttemptAt: now,
    sentAt: now,
  });
}

const specimens: Specimen[] = [
  {
    collection: 'users',
    what: `${MAX_KEYWORDS} keywords and ${MAX_EXCLUDES} excludes at ${MAX_KEYWORD_LENGTH} characters, the longest address, ${MAX_CHANNELS} webhooks at ${largestChannels[0].destination.length}-character URLs`,
    id: longestUid,
    data: {
      ...subscriberConverter.toFirestore({
        ...broadestSubscriber,
        channels: largestChannels,
        status: 'pending',
        signupNonce: 'n'.repeat(22),
        expireAt,
      }),
      confirmSeq: 1_000_000,
      manageSeq: 1_000_000,
      unsubscribedAt: now,
    },
  },
  {
    collection: 'jobs',
    what: `every field at its cap, ${storedPosting.skills.length} skills, ${storedPosting.matchedShards!.length} shard tags, ${storedPosting.sightings!.length} sightings`,
    id: storedPosting.id,
    data: { ...postingConverter.toFirestore(storedPosting), lastListedAt: now },
  },
  {
    collection: 'postingKeys',
    what: 'a key naming the longest posting id',
    id: `fp_${'f'.repeat(20)}`,
    data: { canonicalId: storedPosting.id, firstSeenAt: now, expireAt },
  },
  {
    collection: 'deliveries',
    what: `one pair with ${largestDelivery.reasons.length} reasons`,
    id: deliveryId(largestDelivery.uid, largestDelivery.jobId),
    data: deliveryConverter.toFirestore(largestDelivery),
  },
  {
    collection: 'emails',
    what: `a digest of ${DIGEST_MAX_ITEMS} items at every length cap (those that fit MAX_EMAIL_BYTES), in a batch of 100, retried 20 times`,
    id: digestEmailKey(longestUid, day),
    data: afterItsLife(digestRow, digestEmailKey(longestUid, day)),
  },
  {
    collection: 'emails',
    what: `an alert of ${MAX_ALERT_ITEMS} items (MAX_ALERT_ITEMS) at every length cap`,
    id: alertEmailKey(longestUid, alertRow.deliveryIds),
    data: afterItsLife(alertRow, alertEmailKey(longestUid, alertRow.deliveryIds)),
  },
  {
    collection: 'emails',
    what: `a welcome of ${WELCOME_MAX_ITEMS} items (WELCOME_MAX_ITEMS) at every length cap, keyed by the longest signup nonce`,
    id: welcomeEmailKey(longestUid, welcomeNonce),
    data: afterItsLife(welcomeRow, welcomeEmailKey(longestUid, welcomeNonce)),
  },
  ...largestMessages.map((m): Specimen => ({
    collection: 'messages',
    what: `${m.row.channel}: the largest of an alert of ${MAX_ALERT_ITEMS} and a digest of ${DIGEST_MAX_ITEMS} postings at every length cap, leased on its last try`,
    id: m.key,
    data: messageAfterItsLife(m.row),
  })),
  {
    collection: 'runs',
    what: `a failed run over ${FEEDS_IN_A_RUN} failing feeds, with every channel kind's figures`,
    id: runId,
    data: runRecord(FEEDS_IN_A_RUN),
  },
  {
    collection: 'feeds',
    what: 'a disabled feed with its validators and its health at every cap',
    id: longestSource,
    data: {
      url: `https://example.com/${'u'.repeat(8_000)}`,
      etag: 'e'.repeat(8_000),
      lastModified: 'Mon, 30 Nov 2026 08:00:00 GMT',
      lastFetchedAt: now,
      lastStatus: 'error',
      lastItemCount: 1_000_000,
      lastError: 'e'.repeat(2_000),
      lastErrorAt: now,
      consecutiveFailures: 1_000_000,
      // Its health (lib/feeds/source-health.ts) at every cap: 20 gaps, 14 days of counts.
      health: 'disabled',
      trackedSince: now,
      lastSuccessAt: now,
      goneStreak: 1_000_000,
      parseStreak: 0,
      lastErrorStatus: 410,
      failingSince: now,
      disabledAt: now,
      disabledReason: `answered 410 1000000 times in a row`,
      nextProbeAt: now,
      lastNewPostingAt: now,
      newPostingGapsMinutes: Array.from({ length: HEALTH_RULES.gapHistory }, () => 10_000_000),
      newPostingsByDay: Object.fromEntries(
        Array.from({ length: HEALTH_RULES.rateWindowDays }, (_, i) => [utcDay(addDays(now, -i)), 1_000_000]),
      ),
    },
  },
  {
    collection: 'locks',
    what: 'a shard lock',
    id: `scan-${MAX_SHARDS - 1}-of-${MAX_SHARDS}`,
    data: { owner: runId, ts: now, expiresAt: now },
  },
  {
    collection: 'cursors',
    what: 'a claim cursor',
    id: `claim-${MAX_SHARDS - 1}-of-${MAX_SHARDS}`,
    // Passes at their cap, each posting at the longest id, with a revision.
    data: {
      resumeAfter: longestUid,
      passes: [
        {
          from: longestUid,
          through: longestUid,
          postings: Array.from({ length: MAX_PASS_POSTINGS }, (_, i) => passKey({ id: postingId(longestSource, `${i}`), revision: 99 })),
        },
      ],
      runId,
      at: now,
    },
  },
  {
    collection: 'rateLimits',
    what: 'a mailbox window',
    id: `mailbox_${'h'.repeat(22)}_w${Math.floor(now.getTime() / 600_000)}`,
    data: { kind: 'mailbox-window', createdAt: now, expireAt: now, count: 1_000_000 },
  },
  { collection: 'adminSessions', what: 'a session', id: 's'.repeat(43), data: { createdAt: now, expireAt: now } },
  {
    collection: 'matches',
    what: `a verdict with a ${MAX_REASON_LENGTH}-character reason`,
    id: matchId(largestMatch.uid, largestMatch.jobId),
    data: matchVerdictConverter.toFirestore(largestMatch),
  },
  {
    collection: 'feedback',
    what: `"not a fit" on a posting at every cap, ${largestFeedback.skills.length} skills`,
    id: feedbackId(largestFeedback.uid, largestFeedback.jobId),
    data: feedbackConverter.toFirestore(largestFeedback),
  },
  {
    collection: 'aiUsage',
    what: `a day's token count, with the reservations of ${2 * MAX_SHARDS} live runs (every shard of the most there are, each overlapped by a run whose lock lapsed)`,
    id: day,
    data: {
      day,
      tokens: 1e15,
      promptTokens: 1e15,
      completionTokens: 1e15,
      calls: 1e12,
      lapsedTokens: 1e15,
      // A run's entry goes when it records or its lease lapses: the map holds the live runs only.
      held: Object.fromEntries(
        Array.from({ length: 2 * MAX_SHARDS }, (_, i) => [newRunId(new Date(now.getTime() + i)), { tokens: 1e15, until: now }]),
      ),
      updatedAt: now,
      expireAt,
    },
  },
];

const measured = specimens.map((s) => ({ ...s, ...checkDocumentLimits(s.collection, s.id, s.data, indexConfig) }));
const figures: Record<string, string | number>[] = [];

afterAll(() => {
  console.log('Largest documents, against Firestore limits (1 MiB, 40,000 index entries):');
  console.table(figures);
});

describe("no document any code path writes can exceed Firestore's 40,000 index entries or 1 MiB", () => {
  it.each(measured)('$collection, $what: $bytes bytes, $indexEntries index entries', (m) => {
    figures.push({
      collection: m.collection,
      document: m.what,
      bytes: m.bytes,
      indexEntries: m.indexEntries,
      headroom: `${(FIRESTORE_LIMITS.documentBytes / m.bytes).toFixed(1)}× under 1 MiB`,
    });
    expect(m.problems).toEqual([]);
    expect(m.bytes, 'bytes').toBeLessThan(FIRESTORE_LIMITS.documentBytes * SPARE);
    expect(m.indexEntries, 'index entries').toBeLessThan(FIRESTORE_LIMITS.indexEntries * SPARE);
  });

  it("a posting's whole text at its cap keeps jobs/ far from 1 MiB, even at 4 bytes a character", () => {
    const job = measured.find((m) => m.collection === 'jobs')!;
    // The specimen's text really is at the cap, in 3-byte characters (the most one UTF-16 unit takes).
    expect(storedPosting.description.length).toBeGreaterThanOrEqual(MAX_DESCRIPTION - 1);
    const textBytes = Buffer.byteLength(storedPosting.description, 'utf8');
    // Bound it again as if every character took 4 bytes: a looser worst case than UTF-8 allows.
    const worst = job.bytes - textBytes + MAX_DESCRIPTION * 4;
    const headroom = FIRESTORE_LIMITS.documentBytes - worst;
    figures.push({
      collection: 'jobs',
      document: `description at MAX_DESCRIPTION (${MAX_DESCRIPTION}) chars × 4 bytes; under 1 MiB by ${headroom} bytes (${(FIRESTORE_LIMITS.documentBytes / worst).toFixed(1)}×)`,
      bytes: worst,
      indexEntries: job.indexEntries,
    });
    expect(worst).toBeLessThan(FIRESTORE_LIMITS.documentBytes * SPARE);
  });

  it('the digest measured is the largest DIGEST_MAX_ITEMS allows', () => {
    expect(configSchema.shape.DIGEST_MAX_ITEMS.safeParse(String(DIGEST_MAX_ITEMS)).success).toBe(true);
    expect(configSchema.shape.DIGEST_MAX_ITEMS.safeParse(String(DIGEST_MAX_ITEMS + 1)).success).toBe(false);
  });

  it('every collection a code path writes is measured', () => {
    const written = [
      'users',
      'jobs',
      'postingKeys',
      'deliveries',
      'emails',
      'runs',
      'feeds',
      'locks',
      'cursors',
      'rateLimits',
      'adminSessions',
      'matches',
      'aiUsage',
      'feedback',
      'messages',
    ];
    expect([...new Set(specimens.map((s) => s.collection))].sort()).toEqual(written.sort());
  });
});

describe('no document grows with the data', () => {
  const exempt = (collection: string, fieldPath: string) =>
    indexConfig.fieldOverrides.some((o) => o.collectionGroup === collection && o.fieldPath === fieldPath && o.indexes.length === 0);

  it.each([
    ['emails', 'deliveryIds', 'the deliveries an email carries (up to DIGEST_MAX_ITEMS ids)'],
    ['emails', 'batchMembers', 'the email keys of a provider batch (up to 100)'],
    ['emails', 'retryHistory', 'one entry per operator retry: no cap but the clicks'],
    ['emails', 'payload', 'the html and text sent, read by no query'],
    ['emails', 'payloadGzip', 'a final digest’s html and text, gzipped, read by no query'],
    ['deliveries', 'reasons', 'one per matching keyword'],
    ['runs', 'stats', 'the per-feed list grows with FEED_URLS, which has no cap'],
    ['jobs', 'description', 'the whole text (up to MAX_DESCRIPTION), read by no query'],
    ['jobs', 'sightings', 'up to MAX_SIGHTINGS links and labels, read by no query'],
    ['matches', 'reason', "the model's words, read by no query"],
    ['users', 'about', "the subscriber's own words (up to 500 characters), read by no query"],
    ['aiUsage', 'held', 'one entry per live run holding tokens of the day, keyed by runId, read by no query'],
    ['feedback', 'title', "a posting's title kept past its expiry, read by no query"],
    ['feedback', 'description', "a posting's excerpt kept past its expiry, read by no query"],
    ['feedback', 'skills', "a posting's skills kept past its expiry, read by no query"],
    ['messages', 'body', 'the exact request body (a digest of up to 100 postings on a webhook), read by no query'],
    ['messages', 'deliveryIds', 'the deliveries a message carries (up to DIGEST_MAX_ITEMS ids)'],
    ['users', 'channels', 'up to MAX_CHANNELS maps of URLs, secrets and labels, read by no query: each would be index entries'],
  ])('%s.%s is exempt from single-field indexes: %s', (collection, fieldPath) => {
    expect(exempt(collection, fieldPath)).toBe(true);
  });

  it('lists left indexed are capped by construction: keywords and excludes (25 each), skills (30), shard tags (one per shard count), channel states (one per channel)', () => {
    const user = specimens.find((s) => s.collection === 'users')!.data;
    expect((user.keywords as string[]).length).toBe(25);
    expect((user.excludes as string[]).length).toBe(25);
    // `kind:status` of each channel, deduplicated: at most one per channel, MAX_CHANNELS.
    expect((user.channelStates as string[]).length).toBeGreaterThan(1);
    expect((user.channelStates as string[]).length).toBeLessThanOrEqual(MAX_CHANNELS);
    // 100 distinct categories went into the fixture posting; the builder keeps its cap.
    expect(storedPosting.skills.length).toBe(30);
    expect(storedPosting.matchedShards!.length).toBe((MAX_SHARDS * (MAX_SHARDS + 1)) / 2);
    // And none of them is exempted by accident: they stay queryable.
    for (const [collection, field] of [
      ['users', 'keywords'],
      ['users', 'excludes'],
      ['jobs', 'skills'],
      ['jobs', 'matchedShards'],
      ['users', 'channelStates'],
    ])
      expect(exempt(collection, field)).toBe(false);
  });

  it('field paths in the index file parse as Firestore reads them', () => {
    expect(parseFieldPath('payload.html')).toEqual(['payload', 'html']);
    expect(parseFieldPath('deliveries.`src_a.b`.status')).toEqual(['deliveries', 'src_a.b', 'status']);
  });
});

// ── Today's page design, as a fixture ────────────────────────────────────────────────────────────

/**
 * deliveries/{uid}_{day} as `git show main:lib/ledger/delivery.ts` stores it: one page per
 * subscriber per UTC day, every delivery of the day in a map keyed by posting id.
 */
function legacyPage(input: { uid: string; jobIds: string[]; reasons: string[] }) {
  return {
    uid: input.uid,
    day,
    deliveries: Object.fromEntries(
      input.jobIds.map((jobId) => [
        jobId,
        {
          jobId,
          mode: 'daily',
          status: 'queued',
          score: 100,
          reasons: input.reasons,
          emailKey: null,
          digestDate: day,
          reason: null,
          runId,
          createdAt: Timestamp.fromDate(now),
        },
      ]),
    ),
    pendingDigest: day,
    expireAt: Timestamp.fromDate(expireAt),
  };
}

describe('a subscriber with 25 broad keywords on a day of 10,000 matching postings', () => {
  // prettier-ignore
  const broadKeywords = [
    'react', 'typescript', 'javascript', 'node', 'python', 'frontend', 'backend', 'full stack', 'web', 'api',
    'design', 'mobile', 'ios', 'android', 'aws', 'cloud', 'devops', 'sql', 'data', 'ui', 'ux', 'wordpress', 'shopify', 'php', 'remote',
  ];
  const subscriber = { keywords: broadKeywords, excludes: [], minPay: { ...NO_MIN_PAY, fixed: { amount: 100, currency: 'USD' } } };
  const uid = subscriberId('ada.lovelace@example.com');
  /** A posting that names every keyword, as a broad day's postings do between them. */
  const posting = (n: number): Posting => ({
    id: postingId('weworkremotely', `https://example.com/jobs/${n}`),
    source: 'weworkremotely',
    guid: null,
    title: `Senior engineer #${n}`,
    url: `https://example.com/jobs/${n}`,
    description: broadKeywords.join(', '),
    budget: { amount: 5_000, currency: 'USD', kind: 'fixed' },
    skills: [],
    publishedAt: now,
  });
  const verdict = scorePosting(subscriber, posting(0));
  if (!verdict.matched) throw new Error('fixture posting does not match');
  const reasons = verdict.reasons;
  const jobIds = Array.from({ length: 10_000 }, (_, n) => posting(n).id);
  const pageOf = (count: number) => legacyPage({ uid, jobIds: jobIds.slice(0, count), reasons });
  const checkPage = (count: number) => checkDocumentLimits('deliveries', `${uid}_${day}`, pageOf(count), indexConfig);

  it("today's page design is refused: one page holding the day's 10,000 deliveries is over both limits", () => {
    expect(reasons).toHaveLength(26);
    const page = checkPage(10_000);
    figures.push({
      collection: 'deliveries (page design)',
      document: '10,000 deliveries on one page',
      bytes: page.bytes,
      indexEntries: page.indexEntries,
    });
    expect(page.problems).toHaveLength(2);
    expect(page.bytes).toBeGreaterThan(FIRESTORE_LIMITS.documentBytes);
    expect(page.indexEntries).toBeGreaterThan(FIRESTORE_LIMITS.indexEntries);
  });

  it("today's page crosses 40,000 index entries and 1 MiB hundreds of deliveries before the day's 10,000", () => {
    const firstOver = (over: (count: number) => boolean) => {
      let [low, high] = [1, jobIds.length];
      while (low < high) {
        const mid = Math.floor((low + high) / 2);
        if (over(mid)) high = mid;
        else low = mid + 1;
      }
      return low;
    };
    const entries = firstOver((count) => checkPage(count).indexEntries > FIRESTORE_LIMITS.indexEntries);
    const bytes = firstOver((count) => checkPage(count).bytes > FIRESTORE_LIMITS.documentBytes);
    figures.push({
      collection: 'deliveries (page design)',
      document: `over 40,000 entries at ${entries} deliveries, over 1 MiB at ${bytes}`,
      bytes: '',
      indexEntries: '',
    });
    expect(entries).toBeLessThan(1_000);
    expect(bytes).toBeLessThan(10_000);
  });

  it('per pair, the same day is 10,000 documents, each far under both limits', () => {
    let largest = { bytes: 0, indexEntries: 0 };
    for (const jobId of jobIds) {
      const data = deliveryConverter.toFirestore({
        uid,
        jobId,
        mode: 'daily',
        status: 'queued',
        score: 100,
        reasons,
        emailKey: null,
        digestDate: day,
        digestDueAt: now,
        shardBucket: shardBucketOf(uid),
        reason: null,
        runId,
        createdAt: now,
        sentAt: null,
        expireAt,
      }) as Record<string, unknown>;
      const check = checkDocumentLimits('deliveries', deliveryId(uid, jobId), data, indexConfig);
      expect(check.problems).toEqual([]);
      if (check.bytes > largest.bytes) largest = check;
    }
    figures.push({
      collection: 'deliveries (per pair)',
      document: 'largest of the same 10,000',
      bytes: largest.bytes,
      indexEntries: largest.indexEntries,
    });
    expect(largest.bytes).toBeLessThan(FIRESTORE_LIMITS.documentBytes / 100);
    expect(largest.indexEntries).toBeLessThan(FIRESTORE_LIMITS.indexEntries / 100);
  });
});

// ── The match index at 1,000,000 subscribers ─────────────────────────────────────────────────────
// Imported here, with the block, so that it stays whole when other blocks are appended.
const { entryFor, matchIndexShardId, matchIndexShardOf } = await import('../../lib/subscribers/match-index');
const { matchIndexShardsFor } = await import('../../lib/subscribers/match-index-layout');
type IndexedSubscriber = NonNullable<Parameters<typeof entryFor>[0]>;

describe('the match index at 1,000,000 subscribers, every profile as large as the index keeps inline', () => {
  const SUBSCRIBERS = 1_000_000;
  /** The room to spare every document keeps (SPARE, half of 1 MiB). */
  const half = FIRESTORE_LIMITS.documentBytes * SPARE;
  // The longest uid there is (a 254-character address), made distinct by a counter in the local part.
  const uidOf = (i: number) =>
    subscriberId(`${String(i).padStart(7, '0')}${'l'.repeat(57)}@${'d'.repeat(63)}.${'o'.repeat(63)}.${'m'.repeat(56)}.test`);

  /**
   * The largest entry the index stores inline: a profile grown one wide character (3 UTF-8 bytes)
   * at a time, keywords then excludes, every other field at its widest, until the next character
   * would make it a pointer. Whatever bound entryFor keeps (characters or bytes), this meets it.
   * `routes`: the subscriber's active channels, which the entry carries (field 13) and which leave
   * that much less room for keywords before the entry becomes a pointer.
   */
  function largestInlineEntry(routes: ChannelRoute[]): string {
    const base: IndexedSubscriber = {
      id: uidOf(0),
      email: Buffer.from(uidOf(0), 'base64url').toString('utf8'),
      keywords: [],
      excludes: [],
      minPay: {
        fixed: { amount: 9_999_999.99, currency: 'USD' },
        hourly: { amount: 9_999_999.99, currency: 'EUR' },
        yearly: { amount: 9_999_999.99, currency: 'GBP' },
      },
      mode: 'weekly',
      profileVersion: Number.MAX_SAFE_INTEGER,
      fitThreshold: 100,
      status: 'active',
      timezone: 'America/Argentina/ComodRivadavia',
      digestHour: 23,
      weekdays: ['mon', 'wed', 'fri'],
      weeklyDay: 'sun',
      feedTokenVersion: Number.MAX_SAFE_INTEGER,
      linkVersion: Number.MAX_SAFE_INTEGER,
      ...(routes.length > 0 ? { routes } : {}),
    };
    let kept = entryFor(base);
    if (typeof kept !== 'string') throw new Error('the bare profile does not fit inline');
    const lists = { keywords: [] as string[], excludes: [] as string[] };
    for (const [list, cap] of [
      ['keywords', MAX_KEYWORDS],
      ['excludes', MAX_EXCLUDES],
    ] as const)
      for (let n = 0; n < cap; n++)
        for (let length = 1; length <= MAX_KEYWORD_LENGTH; length++) {
          const grown = [...lists[list].slice(0, n), wide(n + (list === 'excludes' ? 500 : 0), length)];
          const entry = entryFor({ ...base, ...lists, [list]: grown });
          if (typeof entry !== 'string') return kept;
          lists[list] = grown;
          kept = entry;
        }
    return kept;
  }

  /**
   * Every subscriber with MAX_CHANNELS channels, all active (the worst case; a share of them with
   * one channel falls between the two): each route is packed in the entry, and the entry keeps the
   * same byte bound, so routes take room from keywords rather than add to a shard.
   */
  const withoutChannels = largestInlineEntry([]);
  const withChannels = largestInlineEntry(
    Array.from({ length: MAX_CHANNELS }, (_, i) => ({
      id: newChannelId(),
      kind: CHANNEL_KINDS[i % CHANNEL_KINDS.length],
      instant: true,
      digest: true,
    })),
  );
  const entry = [withoutChannels, withChannels].reduce((a, b) => (Buffer.byteLength(b) > Buffer.byteLength(a) ? b : a));

  /** The layout sized for `subscribers` and its fullest shard, filled with the largest entry under the longest uids. */
  function measureLayout(subscribers: number) {
    const shards = matchIndexShardsFor(subscribers);
    // Where the hash puts each subscriber: the fullest shard is what must fit, not the mean.
    const byShard = new Map<number, string[]>();
    for (let i = 0; i < subscribers; i++) {
      const uid = uidOf(i);
      const k = matchIndexShardOf(uid, shards);
      const list = byShard.get(k) ?? [];
      list.push(uid);
      byShard.set(k, list);
    }
    const [k, uids] = [...byShard.entries()].reduce((a, b) => (b[1].length > a[1].length ? b : a));
    const doc = { profiles: Object.fromEntries(uids.map((uid) => [uid, entry])), builtAt: now, fullAt: now };
    return { shards, fullest: uids.length, ...checkDocumentLimits('matchIndex', matchIndexShardId(k, shards), doc, indexConfig) };
  }

  /** Each count is measured once: hashing a million uids is most of this file's time, and both tests ask for 1,000,000. */
  const measured = new Map<number, ReturnType<typeof measureLayout>>();
  const measure = (subscribers: number) => {
    const m = measured.get(subscribers) ?? measureLayout(subscribers);
    measured.set(subscribers, m);
    return m;
  };

  it('the fullest shard stays under half of 1 MiB and of 40,000 index entries', () => {
    const m = measure(SUBSCRIBERS);
    console.log(
      `match index at ${SUBSCRIBERS} subscribers: ${m.shards} shards, the fullest holds ${m.fullest} (mean ${SUBSCRIBERS / m.shards}),` +
        ` entries of ${Buffer.byteLength(entry)} bytes under uids of ${uidOf(0).length} characters: ${m.bytes} bytes, ${m.indexEntries} index entries`,
    );
    expect(m.problems).toEqual([]);
    expect(m.bytes, 'bytes').toBeLessThan(half);
    expect(m.indexEntries, 'index entries').toBeLessThan(FIRESTORE_LIMITS.indexEntries * SPARE);
  });

  it(`an entry carrying ${MAX_CHANNELS} channels' routes is bounded like any other (MAX_INLINE_ENTRY_BYTES), so channels add nothing to the fullest shard`, async () => {
    const { MAX_INLINE_ENTRY_BYTES } = await import('../../lib/subscribers/match-index-layout');
    const routesField = (JSON.parse(withChannels) as unknown[])[13] as unknown[];
    expect(routesField).toHaveLength(MAX_CHANNELS);
    for (const e of [withoutChannels, withChannels]) expect(Buffer.byteLength(e)).toBeLessThanOrEqual(MAX_INLINE_ENTRY_BYTES);
    const routeBytes = Buffer.byteLength(JSON.stringify(routesField)) + 1;
    // A profile that inlined before may become a pointer once it has channels: a read of users/ per run, not a larger shard.
    console.log(
      `match index entries at their largest: ${Buffer.byteLength(withoutChannels)} bytes without channels,` +
        ` ${Buffer.byteLength(withChannels)} with ${MAX_CHANNELS} routes (${routeBytes} of them routes, taken from the keywords' room)`,
    );
  });

  it('so does the layout sized for 10,000 and 100,000, and each is one MATCH_INDEX_SHARDS accepts: a run reads it plus the layout', () => {
    for (const subscribers of [10_000, 100_000, SUBSCRIBERS]) {
      const m = measure(subscribers);
      console.log(
        `match index at ${subscribers}: ${m.shards} shards (a run reads ${m.shards + 1} documents), fullest ${m.fullest} subscribers, ${m.bytes} bytes`,
      );
      expect(m.bytes).toBeLessThan(half);
      expect(configSchema.shape.MATCH_INDEX_SHARDS.safeParse(String(m.shards)).success).toBe(true);
    }
  });
});

// ── Index only what a query uses ─────────────────────────────────────────────────────────────────

/**
 * Firestore indexes every field of every document by default, and a single-field index on a value
 * that grows with time (a timestamp, a run id) puts every new write at the end of one key range:
 * Firestore documents about 500 writes a second for a collection with such an index
 * (https://firebase.google.com/docs/firestore/best-practices#high_read_write_and_delete_rates_to_a_narrow_document_range),
 * and the bench's claim writes 3,490 deliveries a second. A TTL policy needs no index on its field
 * (https://firebase.google.com/docs/firestore/ttl, "TTL fields and indexes"). So on the collections
 * written at volume a field keeps its single-field index only when a query below needs it.
 *
 * The queries are those lib/ and scripts/ run (the last test checks the list against the source).
 * A query is served by a composite index of firestore.indexes.json when one matches it (its
 * equality fields in any order, then its orderBys, then its range field), and then needs no
 * single-field index at all; otherwise by single-field indexes, which Firestore can do for a query
 * on one field, or for equalities only (it merges their indexes).
 */
describe('index only what a query uses: no field that grows with time keeps an index no query needs', () => {
  const VOLUME = ['deliveries', 'emails', 'messages', 'matches', 'jobs', 'postingKeys', 'runs', 'nearMisses'];
  type Query = {
    collection: string;
    /** Where it runs (file: what). */
    by: string;
    equal?: string[];
    /** An array-contains filter: served by the field's single-field array-contains index (no composite of the file has one). */
    contains?: string;
    range?: string[];
    /** orderBy fields, `field` or `field desc`; orderBy(documentId) is every index's tail, left out. */
    order?: string[];
    /** Runs only on the emulator (the bench): production never asks, so it needs no index. */
    emulatorOnly?: boolean;
  };
  const QUERIES: Query[] = [
    { collection: 'deliveries', by: 'read-subscriber-history.ts', equal: ['uid'], order: ['createdAt desc'] },
    { collection: 'deliveries', by: 'read-exclude-suggestion.ts: recent matches', equal: ['uid'], order: ['createdAt desc'] },
    { collection: 'deliveries', by: 'read-archive.ts', equal: ['uid'], range: ['createdAt'], order: ['createdAt desc'] },
    { collection: 'deliveries', by: 'read-status.ts: digest items due', equal: ['status'], range: ['digestDueAt'] },
    { collection: 'deliveries', by: 'delivery.ts: queuedDeliveriesPage (the backfills)', equal: ['status'] },
    { collection: 'deliveries', by: 'migrate-ledger.ts: the old day pages', order: ['day'] },
    {
      collection: 'deliveries',
      by: 'read-due-items.ts: dueSubscribers',
      equal: ['status'],
      range: ['digestDueAt'],
      order: ['digestDueAt', 'uid', 'score desc'],
    },
    {
      collection: 'deliveries',
      by: 'read-due-items.ts: dueSubscribers, bucketed',
      equal: ['status', 'shardBucket'],
      range: ['digestDueAt'],
      order: ['digestDueAt', 'uid', 'score desc'],
    },
    { collection: 'deliveries', by: 'read-due-items.ts: takeLaterSlots, anything due later', equal: ['status'], range: ['digestDueAt'] },
    { collection: 'deliveries', by: 'read-due-items.ts: takeLaterSlots', equal: ['status', 'uid'], range: ['digestDueAt'] },
    { collection: 'deliveries', by: 'reschedule-queued-digests.ts, skip-queued-deliveries.ts', equal: ['uid', 'status'] },
    { collection: 'emails', by: 'read-status.ts, dry-run.ts: rows by status', equal: ['status'] },
    { collection: 'emails', by: 'read-status.ts: failed and dead', equal: ['status'], order: ['createdAt desc'] },
    { collection: 'emails', by: 'read-dashboard.ts: digests sent today', equal: ['kind', 'status'], range: ['sentAt'] },
    { collection: 'emails', by: 'resend-digest.ts', equal: ['uid', 'kind'], order: ['createdAt desc'] },
    { collection: 'emails', by: 'read-subscriber-history.ts', equal: ['uid'], order: ['createdAt desc'] },
    { collection: 'emails', by: 'digest-rows.ts', equal: ['uid', 'kind'], range: ['createdAt'] },
    { collection: 'emails', by: 'dispatch-outbox.ts: abandoned leases', equal: ['status'], range: ['leaseUntil'] },
    { collection: 'emails', by: 'dispatch-outbox.ts: pending', equal: ['status'], order: ['createdAt'] },
    { collection: 'emails', by: 'release-held-rows.ts', equal: ['status'], range: ['notBefore'], order: ['notBefore'] },
    { collection: 'messages', by: 'dispatch-messages.ts: pending', equal: ['status'], range: ['notBefore'], order: ['notBefore'] },
    { collection: 'messages', by: 'dispatch-messages.ts: abandoned leases', equal: ['status'], range: ['leaseUntil'] },
    { collection: 'jobs', by: 'store-postings.ts: pending postings', equal: ['matchState'] },
    { collection: 'jobs', by: 'read-status.ts: postings waiting', equal: ['matchState'], range: ['fetchedAt'] },
    { collection: 'jobs', by: 'read-recent-postings.ts: the preview', range: ['fetchedAt'], order: ['fetchedAt desc'] },
    { collection: 'jobs', by: 'scripts/demo/sources-table.ts', equal: ['source'] },
    { collection: 'runs', by: 'read-status.ts, read-dashboard.ts: recent runs', order: ['startedAt desc'] },
    { collection: 'runs', by: 'digest-hour-coverage.ts: slots served', range: ['startedAt'] },
    { collection: 'users', by: 'subscriber.ts, match-index-status.ts, scripts/cli/users-list.ts', equal: ['status'] },
    { collection: 'users', by: 'digest-hour-coverage.ts: zones at an hour', equal: ['status', 'mode', 'digestHour'], order: ['timezone'] },
    { collection: 'users', by: 'digest-hour-coverage.ts: subscribers at an hour', equal: ['status', 'mode', 'digestHour', 'timezone'] },
    { collection: 'users', by: 'migrate-min-pay.ts', order: ['minBudget'] },
    // The ops page counts channels by kind and state: where('channelStates', 'array-contains', 'slack:active').count().
    { collection: 'users', by: 'read-status.ts: channels by kind and state', contains: 'channelStates' },
    { collection: 'messages', by: 'channel-status.ts: messages waiting', equal: ['status'] },
    { collection: 'messages', by: 'channel-status.ts: recently disabled', equal: ['status'], order: ['createdAt desc'] },
    // The bench counts each kind's messages on the emulator; no deployment runs these.
    { collection: 'messages', by: 'scripts/bench/bench-channels.ts: messages by kind', equal: ['channel', 'kind'], emulatorOnly: true },
    {
      collection: 'messages',
      by: 'scripts/bench/bench-channels.ts: waiting by kind',
      equal: ['channel'],
      range: ['status'],
      emulatorOnly: true,
    },
    { collection: 'feeds', by: 'source-coverage.ts', range: ['lastFetchedAt'] },
    { collection: 'feedback', by: 'counter-examples.ts, read-exclude-suggestion.ts', equal: ['uid'], order: ['createdAt desc'] },
    { collection: 'channelLinks', by: 'channel-links.ts: the channels bound to a chat (/stop)', equal: ['chatId'] },
    // prune-ledger.ts walks each collection by document id where expireAt has no index (no query
    // on it), and asks expireAt <= now where it has one: the collections not written at volume.
    ...['users', 'rateLimits', 'adminSessions', 'aiUsage', 'feedback'].map((collection) => ({
      collection,
      by: 'prune-ledger.ts: expired',
      range: ['expireAt'],
    })),
    ...[...VOLUME, 'users', 'rateLimits', 'adminSessions', 'aiUsage', 'feedback'].map((collection) => ({
      collection,
      by: 'scripts/bench/run-bench.ts: documents with expireAt',
      range: ['expireAt'],
      emulatorOnly: true,
    })),
  ];

  const fieldOf = (order: string) => order.split(' ')[0];
  const fieldsOf = (q: Query) => [
    ...new Set([...(q.equal ?? []), ...(q.contains ? [q.contains] : []), ...(q.range ?? []), ...(q.order ?? []).map(fieldOf)]),
  ];
  /** The composite index of the file that serves the query, if one does. */
  function compositeFor(q: Query) {
    if (q.contains) return undefined;
    const equal = new Set(q.equal ?? []);
    const ordered = [...(q.order ?? []), ...(q.range ?? []).filter((r) => !(q.order ?? []).map(fieldOf).includes(r))];
    return indexConfig.indexes.find((index) => {
      if (index.collectionGroup !== q.collection || index.fields.length !== equal.size + ordered.length) return false;
      const head = index.fields.slice(0, equal.size).map((f) => f.fieldPath);
      const tail = index.fields.slice(equal.size);
      return (
        head.every((f) => equal.has(f)) &&
        tail.every((f, i) => {
          const [name, direction] = ordered[i].split(' ');
          // A range field nobody orders by may sit in the index either way.
          const asked = (q.order ?? []).some((o) => fieldOf(o) === name);
          return f.fieldPath === name && (!asked || (f.order === 'DESCENDING') === (direction === 'desc'));
        })
      );
    });
  }
  /** The single-field indexes a query served without a composite index needs: one field, or equalities only. */
  function singleFieldNeeds(q: Query): string[] | 'unserved' {
    if (q.emulatorOnly || compositeFor(q)) return [];
    const fields = fieldsOf(q);
    if (fields.length === 1 || fields.length === (q.equal ?? []).length) return fields;
    return 'unserved';
  }
  const isExempt = (collection: string, field: string) =>
    indexConfig.fieldOverrides.some((o) => o.collectionGroup === collection && o.fieldPath === field && o.indexes.length === 0);
  /** Firestore gives an array field an array-contains index unless an override lists none. */
  const containsIndexed = (collection: string, field: string) => {
    const override = indexConfig.fieldOverrides.find((o) => o.collectionGroup === collection && o.fieldPath === field);
    return !override || override.indexes.some((i) => i.arrayConfig === 'CONTAINS');
  };
  const needers = (collection: string, field: string) =>
    QUERIES.filter((q) => q.collection === collection && (singleFieldNeeds(q) as string[]).includes?.(field)).map((q) => q.by);

  /** What each volume collection's writers put in a document: the largest specimens above, built with the real builders. */
  const written = new Map<string, Record<string, unknown>>(VOLUME.map((c) => [c, {}]));
  for (const s of specimens) if (written.has(s.collection)) Object.assign(written.get(s.collection)!, s.data);
  // nearMisses/{uid}_{day} (record-near-misses.ts, near-misses.ts), through its converter.
  Object.assign(written.get('nearMisses')!, {
    uid: longestUid,
    day,
    excluded: ['h'.repeat(12)],
    underMinBudget: ['h'.repeat(12)],
    expireAt: Timestamp.fromDate(expireAt),
  });
  // Fields a queued delivery and a held email carry that the largest specimens above do not.
  // A final digest keeps its payload gzipped (lease-row.ts closeWrites).
  Object.assign(written.get('emails')!, {
    notBefore: Timestamp.fromDate(now),
    signupNonce: 'n'.repeat(22),
    payloadGzip: packPayload(digestRow.payload!),
  });

  /** Grows with time: a timestamp (createdAt, sentAt, expireAt, digestDueAt, …), or a run id (it starts with the run's instant). */
  const growsWithTime = (field: string, value: unknown) => value instanceof Timestamp || value instanceof Date || field === 'runId';

  const table = VOLUME.flatMap((collection) =>
    Object.entries(written.get(collection)!).map(([field, value]) => ({
      collection,
      field,
      growsWithTime: growsWithTime(field, value),
      indexed: !isExempt(collection, field),
      neededBy: needers(collection, field).join('; '),
    })),
  );

  it('every query the code runs is served by the file: a composite index, or the single-field indexes it needs', () => {
    const unserved = QUERIES.flatMap((q) => {
      const needs = singleFieldNeeds(q);
      if (needs === 'unserved') return [`${q.collection}: ${q.by} (no composite index matches)`];
      if (q.contains && !containsIndexed(q.collection, q.contains)) return [`${q.collection}.${q.contains}: ${q.by} needs array-contains`];
      return needs.filter((f) => isExempt(q.collection, f)).map((f) => `${q.collection}.${f}: ${q.by} needs it, and it is exempt`);
    });
    expect(unserved).toEqual([]);
  });

  it('the collections written at volume index no field that grows with time unless a query needs it', () => {
    console.log('Single-field indexes of the collections written at volume:');
    console.table(table.map((r) => ({ ...r, indexed: r.indexed ? 'indexed' : 'exempt' })));
    const offenders = table.filter((r) => r.growsWithTime && r.indexed && !r.neededBy).map((r) => `${r.collection}.${r.field}`);
    expect(offenders).toEqual([]);
    // And a TTL field keeps its policy when it loses its index.
    for (const collection of VOLUME) {
      const override = indexConfig.fieldOverrides.find((o) => o.collectionGroup === collection && o.fieldPath === 'expireAt') as
        { ttl?: boolean } | undefined;
      expect(override?.ttl, `${collection}.expireAt`).toBe(true);
    }
  });

  it('on those collections, only fields a query needs stay indexed, but for lists another test keeps queryable', () => {
    const keptOnPurpose = new Set(['jobs.skills', 'jobs.matchedShards']);
    const idle = table.filter((r) => r.indexed && !r.neededBy && !keptOnPurpose.has(`${r.collection}.${r.field}`));
    expect(idle.map((r) => `${r.collection}.${r.field}`)).toEqual([]);
  });

  /**
   * What the flush's due query is billed, per run and per day, at 1,000,000 subscribers. Firestore
   * bills a query one read per document it returns and one per 1,000 index entries it scans
   * (https://firebase.google.com/docs/firestore/pricing, "index entries read to satisfy a query"),
   * and at least one read for a query that returns nothing. An index scan reads every entry from
   * the start of its equality prefix to the end of its first non-equality field's range: when that
   * field is the range (digestDueAt first), only what is due; when it is an orderBy (uid first, the
   * range last), every queued item, due or not.
   * Assumed: every subscriber takes a daily digest and has 10 items queued (a day of matches; a
   * digest sends DIGEST_MAX_ITEMS, 20, at most); digest hours spread evenly over the day's 24, on
   * the hour; a run every 15 minutes (docs/design.md §1), so one run in four finds 1/24 of the subscribers
   * due and the other three find nobody; nobody due at the hour is also due at an earlier slot (no
   * run was missed), so each subscriber batch of SUBSCRIBERS_PER_BATCH (1,000) handed on before the last costs
   * one read asking whether anything is due later (takeLaterSlots), and finds nothing.
   */
  it('the flush query at 1,000,000 subscribers reads about what is due, and one read when nobody is', () => {
    const SUBSCRIBERS = 1_000_000;
    const QUEUED_PER_SUBSCRIBER = 10;
    const RUNS_PER_DAY = 96;
    const DIGEST_HOURS = 24;
    const queued = SUBSCRIBERS * QUEUED_PER_SUBSCRIBER;
    const dueSubscribers = SUBSCRIBERS / DIGEST_HOURS;
    const dueItems = Math.round(dueSubscribers * QUEUED_PER_SUBSCRIBER);
    const billed = (scanned: number, returned: number) => Math.max(1, returned + Math.ceil(scanned / 1_000));
    /** Entries the index scans for a run with `due` items due: decided by where the range sits among the index's non-equality fields. */
    const scanned = (index: IndexConfig['indexes'][number], q: Query, due: number) =>
      index.fields[(q.equal ?? []).length].fieldPath === q.range![0] ? due : queued;

    const before: Query = {
      collection: 'deliveries',
      by: 'the due query before',
      equal: ['status'],
      range: ['digestDueAt'],
      order: ['uid', 'score desc'],
    };
    const beforeIndex = {
      collectionGroup: 'deliveries',
      fields: ['status', 'uid', 'score', 'digestDueAt'].map((fieldPath) => ({ fieldPath })),
    };
    const now = QUERIES.find((q) => q.by === 'read-due-items.ts: dueSubscribers')!;
    const nowIndex = compositeFor(now)!;
    const laterSlotProbes = Math.ceil(dueSubscribers / 1_000) - 1;

    const run = {
      before: { due: billed(scanned(beforeIndex, before, dueItems), dueItems), nobodyDue: billed(scanned(beforeIndex, before, 0), 0) },
      after: {
        due: billed(scanned(nowIndex, now, dueItems), dueItems) + laterSlotProbes,
        nobodyDue: billed(scanned(nowIndex, now, 0), 0),
      },
    };
    const perDay = (r: { due: number; nobodyDue: number }) => (RUNS_PER_DAY / 4) * r.due + ((RUNS_PER_DAY * 3) / 4) * r.nobodyDue;
    console.table([
      {
        query: 'before: (status, uid, score desc, digestDueAt)',
        dueItems,
        runWithDue: run.before.due,
        runWithNobodyDue: run.before.nobodyDue,
        perDay: perDay(run.before),
      },
      {
        query: 'after: (status, digestDueAt, uid, score desc)',
        dueItems,
        runWithDue: run.after.due,
        runWithNobodyDue: run.after.nobodyDue,
        perDay: perDay(run.after),
      },
    ]);
    expect(run.before).toEqual({ due: 426_667, nobodyDue: 10_000 });
    expect(run.after).toEqual({ due: 417_125, nobodyDue: 1 });
    expect(run.after.due / dueItems).toBeLessThan(1.01);
    expect(perDay(run.before)).toBe(10_960_008);
    expect(perDay(run.after)).toBe(10_011_072);
  });

  it('the overrides stay within what Firestore allows (200 single-field exemptions and TTL fields, the strictest figure published)', () => {
    expect(indexConfig.fieldOverrides.length).toBeLessThanOrEqual(200);
  });

  it('every field a query in lib/ or scripts/ filters or orders by is in the list above', async () => {
    const { readdirSync } = await import('node:fs');
    const root = join(__dirname, '../..');
    const sources = ['lib', 'scripts'].flatMap((dir) =>
      (readdirSync(join(root, dir), { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f)).map((f) => join(root, dir, f)),
    );
    const asked = new Set<string>();
    for (const file of sources) for (const m of readFileSync(file, 'utf8').matchAll(/\.(?:where|orderBy)\(\s*'([^']+)'/g)) asked.add(m[1]);
    const listed = new Set(QUERIES.flatMap(fieldsOf));
    expect([...asked].filter((f) => !listed.has(f))).toEqual([]);
  });
});

// ── No hot document at 1,000,000 subscribers ─────────────────────────────────────────────────────

/**
 * Firestore sustains about one write a second on one document (more in bursts); the emulator
 * enforces nothing, so a document every run, shard and instance writes would pass every other test
 * and throw contention errors in production. Here each document written by more than one run or
 * instance gets its writes per second at 1,000,000 subscribers, computed from the code's own caps
 * and these assumptions (docs/design.md §7, docs/deploy.md):
 * - the cron fires every 15 minutes (the workflow's and vercel.json's schedule);
 * - 1,000,000 subscribers are 16 shards (`?shard=k&shards=16`; 4 carry 100,000 measured, and more
 *   shards only add writers to the shared documents, so 16 is the worst of 4–16), each called on
 *   every tick, a scheduler sometimes twice (the second is skipped by the shard's lock and writes
 *   nothing);
 * - a run lasts at most RUN_BUDGET_MS (default 240 s) of model calls;
 * - judging: AI_MAX_CALLS_PER_RUN (1,000) calls per run, at 1% matching about 5 postings
 *   per judged subscriber, so a claim batch (PAIRS_PER_CLAIM_BATCH) of 5;
 * - signup: 1,000,000 subscribers renewed at 5% a month, with a confirmation and a manage email
 *   each, is ~140 signup emails an hour; SIGNUP_CONFIRMATIONS_PER_HOUR as it stands, or twice
 *   that if more;
 * - at most 30 warm instances answer previews at once;
 * - subscribers change what the match index holds (confirm, preferences, pause, unsubscribe) 3
 *   times a month each, and a busy day is 10 times the mean;
 * - 20% of subscribers have a channel beyond email, whose routes change 3 times a month.
 * Imports are inside the tests so this block stands on its own.
 */
describe('no document is written more than about once a second at 1,000,000 subscribers', () => {
  const SUSTAINED_WRITES_PER_SEC = 1;
  const CRON_INTERVAL_SEC = 15 * 60;
  const SHARDS = 16;
  const SUBSCRIBERS = 1_000_000;
  const MONTH_SEC = 30 * 24 * 3_600;
  const hot: { document: string; writesPerSec: string; how: string }[] = [];
  const rate = (document: string, writesPerSec: number, how: string) => {
    hot.push({ document, writesPerSec: writesPerSec.toFixed(4), how });
    return writesPerSec;
  };
  afterAll(() => {
    console.log('Writes per second per shared document at 1,000,000 subscribers (Firestore sustains ~1):');
    console.table(hot);
  });

  it('aiUsage/{day}: a few writes per run (a reservation of the day’s tokens, its top-ups, one record), not one per batch of calls', async () => {
    const { MAX_USAGE_WRITES_PER_RUN, AI_MAX_CALLS_PER_RUN } = await import('../../lib/verdicts/ai-usage');
    const { PAIRS_PER_CLAIM_BATCH } = await import('../../lib/verdicts/score-once');
    const { configSchema: config } = await import('../../lib/runtime/config');
    const defaults = config.parse({
      CRON_SECRET: 'c'.repeat(32),
      LINK_SECRET: 'l'.repeat(44),
      ADMIN_SECRET: 'a'.repeat(32),
      APP_URL: 'https://scout.example.com',
      MAIL_FROM: 'Scout <alerts@example.com>',
      RESEND_API_KEY: 're_test',
      FIREBASE_PROJECT_ID: 'scout',
    });
    const runSec = defaults.RUN_BUDGET_MS / 1_000;
    // Before: one increment per batch; batches of ~5 postings (one subscriber's), within the run's budget.
    const batchesPerRun = AI_MAX_CALLS_PER_RUN / Math.min(5, PAIRS_PER_CLAIM_BATCH);
    const before = rate(
      'aiUsage/{day} (one increment per batch, before)',
      (SHARDS * batchesPerRun) / runSec,
      `${SHARDS} shards × ${batchesPerRun} batches in ${runSec} s`,
    );
    expect(before).toBeGreaterThan(SUSTAINED_WRITES_PER_SEC);
    // Now: whatever the calls, a run writes the day at most MAX_USAGE_WRITES_PER_RUN times.
    const after = rate(
      'aiUsage/{day}',
      (SHARDS * MAX_USAGE_WRITES_PER_RUN) / CRON_INTERVAL_SEC,
      `${SHARDS} shards × ${MAX_USAGE_WRITES_PER_RUN} writes a run, every 15 min`,
    );
    expect(after).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
    // Even if every shard's writes fell inside one run's budget rather than across the interval.
    expect((SHARDS * MAX_USAGE_WRITES_PER_RUN) / runSec).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
  });

  it('the signup email cap: the hour’s counter, its places, the frontier, a mailbox’s day', async () => {
    const { SIGNUP_LIMITS, SIGNUP_CONFIRMATIONS_PER_HOUR } = await import('../../lib/http/rate-limit');
    const hourSec = SIGNUP_LIMITS.globalWindowMs / 1_000;
    const signupEmailsPerHour = Math.ceil(((SUBSCRIBERS * 0.05) / (30 * 24)) * 2);
    // The constant, or twice what 1,000,000 subscribers need if that is more.
    const cap = Math.max(SIGNUP_CONFIRMATIONS_PER_HOUR, 2 * signupEmailsPerHour);
    // signup-emails_h{hour}: one increment per place taken, and an hour has exactly `cap` places.
    expect(
      rate('rateLimits/signup-emails_h{hour}', cap / hourSec, `SIGNUP_CONFIRMATIONS_PER_HOUR = ${cap}: one increment per place`),
    ).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
    // The cap this counter allows: above it the hour's counter is the hot document, so the constant stays under it.
    expect(cap).toBeLessThan(SUSTAINED_WRITES_PER_SEC * hourSec);
    expect(SIGNUP_CONFIRMATIONS_PER_HOUR).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC * hourSec);
    // signup-email_h{hour}_p{n}: created once by the email that takes it; a racer's create fails and writes nothing.
    rate('rateLimits/signup-email_h{hour}_p{n}', 0, 'one create() per place, ever');
    // signup-emails-frontier: written when an email lands past it; it moves an hour per `cap` emails
    // placed, so even a flood of 100 hours' worth in one hour moves it 100 times.
    expect(rate('rateLimits/signup-emails-frontier', 100 / hourSec, 'a flood of 100 × the cap in an hour')).toBeLessThanOrEqual(
      SUSTAINED_WRITES_PER_SEC,
    );
    // mailbox_{key}_d{day}: counted only by the request that won that mailbox's 10-minute window.
    const mailboxDay = rate(
      'rateLimits/mailbox_{key}_d{day}',
      1_000 / SIGNUP_LIMITS.addressWindowMs,
      'one per 10-minute window of that mailbox',
    );
    expect(mailboxDay).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
  });

  it('the preview window’s read budget: admitted reads plus one refusal per instance a minute', async () => {
    const { PREVIEW_WINDOW_SHARING } = await import('../../lib/preview/shared-window');
    const INSTANCES = 30;
    const minuteSec = PREVIEW_WINDOW_SHARING.budgetWindowMs / 1_000;
    const writes = rate(
      'rateLimits/preview-window-reads_m{minute}',
      (PREVIEW_WINDOW_SHARING.readsPerMinute + INSTANCES) / minuteSec,
      `${PREVIEW_WINDOW_SHARING.readsPerMinute} reads a minute + one refusal each of ${INSTANCES} instances`,
    );
    expect(writes).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
  });

  it('the cycle’s own documents: a shard’s lock and cursor, a feed, a run record, the match index', async () => {
    // The fewest shards the index may have (the default): the most writes each takes.
    const { DEFAULT_MATCH_INDEX_SHARDS: MATCH_INDEX_SHARDS } = await import('../../lib/subscribers/match-index-layout');
    // locks/scan-{k}-of-{n}: acquired and released once per run of that shard (a skipped call writes nothing).
    expect(rate('locks/scan-{k}-of-{n}', 2 / CRON_INTERVAL_SEC, 'acquire + release per run of the shard')).toBeLessThanOrEqual(
      SUSTAINED_WRITES_PER_SEC,
    );
    // runs/{runId}: its start and its end.
    expect(rate('runs/{runId}', 2 / CRON_INTERVAL_SEC, 'start + end of one run')).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
    // cursors/claim-{k}-of-{n}: at most once per run of that shard.
    expect(rate('cursors/claim-{k}-of-{n}', 1 / CRON_INTERVAL_SEC, 'a run cut short')).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
    // feeds/{source}: every shard's run fetches every feed, one guarded write per outcome.
    expect(rate('feeds/{source}', SHARDS / CRON_INTERVAL_SEC, `${SHARDS} shards each write it once a tick`)).toBeLessThanOrEqual(
      SUSTAINED_WRITES_PER_SEC,
    );
    // jobs/{id}: a posting is closed (matched) by each shard that matched it.
    expect(rate('jobs/{id}', SHARDS / CRON_INTERVAL_SEC, `closed by each of ${SHARDS} shards`)).toBeLessThanOrEqual(
      SUSTAINED_WRITES_PER_SEC,
    );
    // matchIndex/{k}-of-16: every writer of users/ writes its subscriber's entry there.
    const perShard = (SUBSCRIBERS * 3 * 10) / MONTH_SEC / MATCH_INDEX_SHARDS;
    expect(
      rate(`matchIndex/{k}-of-${MATCH_INDEX_SHARDS}`, perShard, '3 profile changes a month each, a busy day 10×, over its shards'),
    ).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
  });

  it('a channel’s documents: its messages, its subscriber’s users/{uid}, and the match index its routes live in', async () => {
    const { DEFAULT_MATCH_INDEX_SHARDS: MATCH_INDEX_SHARDS } = await import('../../lib/subscribers/match-index-layout');
    const { messageRetryDelayMs } = await import('../../lib/messages/message-rules');
    const { MAX_VERIFY_TRIES } = await import('../../lib/channels/channel');
    // messages/{setKey}_{channelId}: one row per subscriber, channel and delivery set, written by
    // nobody else; its lease keeps two runs from writing it at once. Over its life: the create, then
    // a lease and a record per try, the tries apart by the backoff (at its jitter's shortest).
    const tries = Math.max(...Object.values(MESSAGE_MAX_ATTEMPTS));
    const lifeWrites = 1 + 2 * tries;
    const shortestLifeSec =
      Array.from({ length: tries - 1 }, (_, i) => messageRetryDelayMs(i + 1, () => 0)).reduce((a, b) => a + b, 0) / 1_000;
    expect(
      rate(
        'messages/{messageKey}',
        lifeWrites / shortestLifeSec,
        `create + ${tries} × (lease + record), over ${shortestLifeSec} s of backoff`,
      ),
    ).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
    // users/{uid}: a channel's writes are its subscriber's own doing (added, each wrong code, verified,
    // paused, resumed, removed; Telegram's Start and /stop), but for one the dispatcher makes: "gone"
    // disables it, once (channel-gone.ts writes nothing for a channel already disabled). Even
    // every channel going through all of it in a day is far under one a second.
    const perChannelLife = 1 + MAX_VERIFY_TRIES + 1 + 2 + 1 + 1;
    expect(
      rate(
        'users/{uid} (its channels)',
        (MAX_CHANNELS * perChannelLife) / (24 * 3_600),
        `${MAX_CHANNELS} channels × ${perChannelLife} writes in a day`,
      ),
    ).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
    // The dispatcher's burst: every channel of one subscriber gone in one run, each a guarded update.
    rate('users/{uid} (gone, a burst once)', MAX_CHANNELS, `${MAX_CHANNELS} channels disabled at once, each once ever`);
    // matchIndex/{k}-of-16: a channel that starts or stops routing (verified, paused, resumed, cadence,
    // gone, removed) rewrites its subscriber's entry. Assumed: 20% of subscribers have a channel and
    // change its routes 3 times a month, on top of everyone's 3 profile changes, a busy day 10×.
    const changesPerSubscriber = 3 + 0.2 * 3;
    const withChannels = rate(
      `matchIndex/{k}-of-${MATCH_INDEX_SHARDS} (with channels)`,
      (SUBSCRIBERS * changesPerSubscriber * 10) / MONTH_SEC / MATCH_INDEX_SHARDS,
      '3 profile changes a month each, 20% with a channel changing its routes 3 times, a busy day 10×',
    );
    expect(withChannels).toBeLessThanOrEqual(SUSTAINED_WRITES_PER_SEC);
    // The room left: changes a month per subscriber, on average, that keep a shard under one a second.
    const budget = (SUSTAINED_WRITES_PER_SEC * MONTH_SEC * MATCH_INDEX_SHARDS) / (SUBSCRIBERS * 10);
    rate(
      `matchIndex/{k}-of-${MATCH_INDEX_SHARDS} (the ceiling)`,
      SUSTAINED_WRITES_PER_SEC,
      `${budget.toFixed(2)} entry changes a month per subscriber; past that, raise MATCH_INDEX_SHARDS`,
    );
    expect(budget).toBeGreaterThan(changesPerSubscriber);
  });

  it('per-client counters are keyed by the client: only a client’s own requests write its document', async () => {
    const { clientKey } = await import('../../lib/subscriptions/signup-client-limit');
    const { previewLimitId } = await import('../../lib/preview/preview-limit');
    // rateLimits/client_{hmac(address)}_h{hour} and preview-client_{hmac(address)}_m{minute}: one
    // write per request from that client, refused or not. Sharded by client: two clients never
    // share one, so past one a second it is that client who waits, never the others.
    expect(clientKey('198.51.100.1', 's')).not.toBe(clientKey('198.51.100.2', 's'));
    expect(previewLimitId('198.51.100.1', 's', now)).not.toBe(previewLimitId('198.51.100.2', 's', now));
    rate('rateLimits/client_…, preview-client_…', 0, 'sharded by client address');
  });
});
