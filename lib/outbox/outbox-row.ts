import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import { gunzipSync, gzipSync } from 'node:zlib';
import { sha256Hex, shortHash } from '../store/short-hash';
import { toDate, toTimestamp, type Stored } from '../store/timestamps';
import { hashPayload, type EmailPayload } from '../mail/email-payload';
import { COLLECTIONS } from '../store/collections';

/**
 * emails/{emailKey}: the outbox. The row exists before any send and stores the exact payload,
 * so a retry sends the same bytes under the same Idempotency-Key (the provider answers a changed
 * body under a reused key with 409 invalid_idempotent_request).
 *   [held →] pending → sending (leased) → sent | failed | dead | skipped
 * `held` is an email that may not go before `notBefore` (a signup email past the hour's global
 * cap, placed in a later hour's allowance): no send path leases it, and the dispatcher turns it
 * `pending` once its time has come (release-held-rows.ts).
 */
export type EmailKind = 'alert' | 'digest' | 'confirm' | 'manage' | 'welcome' | 'channel';
export const EMAIL_KINDS: EmailKind[] = ['alert', 'digest', 'confirm', 'manage', 'welcome', 'channel'];

/**
 * Opt-outs win, checked in the same step that leases the row: job emails go only to active
 * subscribers (the welcome is one: the postings of the week before the confirmation); the double
 * opt-in email only to someone still pending; a "manage your subscription" link to someone active
 * or paused. Nobody who unsubscribed gets anything.
 */
export const MAY_RECEIVE: Record<EmailKind, readonly string[]> = {
  alert: ['active'],
  digest: ['active'],
  confirm: ['pending'],
  manage: ['active', 'paused'],
  welcome: ['active'],
  // "Your Slack channel was disconnected": news about their account, as the preferences link is.
  channel: ['active', 'paused'],
};

/**
 * The kinds whose deliveries are claimed `sending` in the same write as the row, before any send
 * (an instant alert, the welcome): no run offers those postings again, so the email itself must go
 * out at most once. A send whose fate is unknown past the provider's key window fails visibly
 * rather than risk a second copy. Every other kind is at-least-once.
 */
export const AT_MOST_ONCE_KINDS: readonly EmailKind[] = ['alert', 'welcome'];
export const isAtMostOnce = (kind: EmailKind) => AT_MOST_ONCE_KINDS.includes(kind);
export type OutboxStatus = 'held' | 'pending' | 'sending' | 'sent' | 'failed' | 'dead' | 'skipped';

export type OutboxRow = {
  uid: string;
  kind: EmailKind;
  deliveryIds: string[];
  status: OutboxStatus;
  attempts: number;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  lastError: string | null;
  providerId: string | null;
  /** The exact bytes to send; null once the row is final and nothing can send it again (see closeWrites; a final digest keeps it gzipped). */
  payload: EmailPayload | null;
  payloadHash: string;
  /** Set when the row goes out inside a provider batch: the batch's key and its members, in order. */
  batchKey: string | null;
  batchMembers: string[] | null;
  /** confirm only: the signup whose nonce its link carries. A later signup makes the email stale (lease-row.ts). */
  signupNonce: string | null;
  runId: string;
  createdAt: Date;
  /** Not sent before this time (status `held` until then); null for an email that may go at once. */
  notBefore: Date | null;
  firstAttemptAt: Date | null;
  sentAt: Date | null;
  expireAt: Date;
};

/** One alert per subscriber per cycle: the key is the set of deliveries it carries, so it is the same on every machine. */
export const alertEmailKey = (uid: string, deliveryIds: string[]) => `alert_${uid}_${shortHash([...deliveryIds].sort().join(','), 16)}`;
/** The double opt-in email's key, as docs/design.md §4 names it: one per confirmation ever sent to the subscriber. */
export const confirmEmailKey = (uid: string, seq: number) => `confirm_${uid}_${seq}`;
/** The email saying a channel answered "gone" and was disabled: one per channel (a channel is disabled once). */
export const channelGoneEmailKey = (uid: string, channelId: string) => `channel_${uid}_${channelId}`;
/** The "you're already subscribed, here is your preferences link" email's key. */
export const manageEmailKey = (uid: string, seq: number) => `manage_${uid}_${seq}`;
/**
 * The first email after a confirmation, with the week's best matches: keyed by the signup's nonce,
 * which the confirmation consumes, so one signup gives at most one welcome whoever clicks how often.
 */
export const welcomeEmailKey = (uid: string, signupNonce: string) => `welcome_${uid}_${signupNonce}`;
/** What one email adds to a provider batch request: its bodies, plus room for the envelope and headers. */
export const batchBytesOf = (row: Pick<OutboxRow, 'payload'>) => payloadOf(row).html.length + payloadOf(row).text.length + 1_000;

/**
 * The payload of a row that can still be sent. A row keeps its payload until it is final; then
 * only a digest (which an operator may resend) and a dead row (which an operator may retry) keep
 * it, so no send path ever asks for the payload of a row without one.
 */
export function payloadOf(row: Pick<OutboxRow, 'payload'>): EmailPayload {
  if (!row.payload) throw new Error('this outbox row is final and no longer keeps its payload: it cannot be sent');
  return row.payload;
}
/** A provider batch is named by its members, so a retry of the same batch carries the same key. */
export const batchKeyFor = (memberKeys: string[]) => `batch_${shortHash([...memberKeys].sort().join(','), 20)}`;
/** One digest per subscriber per UTC day: the key is the claim of {uid, day}. */
export const digestEmailKey = (uid: string, day: string) => `digest_${uid}_${day}`;
/** A digest resent by hand: its own key, so it neither collides with nor blocks the scheduled one. */
export const manualDigestEmailKey = (uid: string, at: Date) => `digest_${uid}_manual-${at.getTime()}`;

/**
 * The Idempotency-Key the provider sees for an email (or batch) key. Email keys embed the uid,
 * base64url of the address, so an address over ~175 characters would make a key longer than the
 * 256 Resend accepts. A digest of the key has a fixed length whatever the address, and the same
 * key always gives the same digest, so a retry from another run or machine still dedupes. The
 * ledger keeps the readable key; the kind stays in front so the provider's logs remain legible.
 */
export const providerIdempotencyKey = (key: string) => `${/^[a-z]{1,16}(?=_)/.exec(key)?.[0] ?? 'scout'}_${sha256Hex(key)}`;

/** A row as first written: pending (held, given a `notBefore`), never attempted, its payload frozen with its hash. */
export function newOutboxRow(input: {
  uid: string;
  kind: EmailKind;
  deliveryIds: string[];
  /** The exact bytes to send; null once the row is final and nothing can send it again (see closeWrites; a final digest keeps it gzipped). */
  payload: EmailPayload;
  runId: string;
  now: Date;
  expireAt: Date;
  signupNonce?: string;
  notBefore?: Date | null;
}): OutboxRow {
  const notBefore = input.notBefore ?? null;
  return {
    uid: input.uid,
    kind: input.kind,
    deliveryIds: input.deliveryIds,
    status: notBefore ? 'held' : 'pending',
    attempts: 0,
    leaseOwner: null,
    leaseUntil: null,
    lastError: null,
    providerId: null,
    payload: input.payload,
    payloadHash: hashPayload(input.payload),
    batchKey: null,
    batchMembers: null,
    signupNonce: input.signupNonce ?? null,
    runId: input.runId,
    createdAt: input.now,
    notBefore,
    firstAttemptAt: null,
    sentAt: null,
    expireAt: input.expireAt,
  };
}

const dateFields = ['leaseUntil', 'createdAt', 'notBefore', 'firstAttemptAt', 'sentAt', 'expireAt'] as const;

/**
 * A final digest keeps its payload for "Resend latest digest", gzipped (`payloadGzip`, bytes): a
 * digest's HTML and text are about 20 KB, and the 30 days of them a deployment keeps were its
 * largest stored kind. The converter gives it back as `payload`, so readers see no difference.
 */
export const packPayload = (payload: EmailPayload): Buffer => gzipSync(JSON.stringify(payload));
const unpackPayload = (packed: Uint8Array): EmailPayload => JSON.parse(gunzipSync(packed).toString('utf8')) as EmailPayload;

export const outboxRowConverter: FirestoreDataConverter<OutboxRow> = {
  toFirestore: (row) => {
    const data: Record<string, unknown> = { ...row };
    for (const field of dateFields) if (field in data) data[field] = toTimestamp(data[field] as Date | null);
    return data;
  },
  fromFirestore: (snap) => {
    const d = snap.data() as Stored<OutboxRow> & { payloadGzip?: Uint8Array };
    return {
      uid: d.uid,
      kind: d.kind,
      deliveryIds: d.deliveryIds ?? [],
      status: d.status,
      attempts: d.attempts ?? 0,
      leaseOwner: d.leaseOwner ?? null,
      leaseUntil: toDate(d.leaseUntil),
      lastError: d.lastError ?? null,
      providerId: d.providerId ?? null,
      payload: d.payload ?? (d.payloadGzip ? unpackPayload(d.payloadGzip) : null),
      payloadHash: d.payloadHash,
      batchKey: d.batchKey ?? null,
      batchMembers: d.batchMembers ?? null,
      signupNonce: d.signupNonce ?? null,
      runId: d.runId,
      createdAt: toDate(d.createdAt)!,
      notBefore: toDate(d.notBefore),
      firstAttemptAt: toDate(d.firstAttemptAt),
      sentAt: toDate(d.sentAt),
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const outboxCollection = (db: Firestore) => db.collection(COLLECTIONS.emails).withConverter(outboxRowConverter);
