import type { Firestore, FirestoreDataConverter } from 'firebase-admin/firestore';
import type { ChannelKind } from '../channels/channel';
import { COLLECTIONS } from '../store/collections';
import { sha256Hex } from '../store/short-hash';
import { toDate, toTimestamp, type Stored } from '../store/timestamps';

/**
 * messages/{messageKey}: the channels' outbox, a sibling of emails/ (docs/channels.md). One row per
 * subscriber, channel and delivery set, created with create() in the same atomic write as the
 * deliveries it carries (an alert) or as the digest's claim (a digest), so the "this must be sent"
 * record exists before any send, and a second run's create() of the same key fails.
 *   pending → sending (leased) → sent | failed | dead | skipped
 * The row freezes the exact request body: a retry sends the same bytes, under the same webhook-id.
 */
export type MessageKind = 'alert' | 'digest';
export type MessageStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'dead' | 'skipped';

export type MessageRow = {
  uid: string;
  channelId: string;
  channel: ChannelKind;
  kind: MessageKind;
  /** The deliveries it carries: an alert's are claimed with it; a digest's are the email digest's. */
  deliveryIds: string[];
  status: MessageStatus;
  attempts: number;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  /** Not tried again before this (a platform's retry-after, a webhook's backoff); null: at once. */
  notBefore: Date | null;
  lastError: string | null;
  /** What the platform gave back (Discord's and Telegram's message id), when it gives one. */
  detail: string | null;
  /** The exact JSON body; null once the row is final. */
  body: string | null;
  /** sha256 of the body, kept when the body is dropped: what was sent can still be recognised (a Telegram body before its chat is set). */
  bodyHash: string;
  runId: string;
  createdAt: Date;
  firstAttemptAt: Date | null;
  sentAt: Date | null;
  expireAt: Date;
};

/**
 * A channel's message of a delivery set: the email key the same set has (an alert's
 * `alert_{uid}_{hash}`, a digest's `digest_{uid}_{period}`) and the channel. Every machine derives
 * the same key from the same data, whether or not an email of that key exists (a daily subscriber's
 * instant channel gets an alert no email carries).
 */
export const messageKey = (setKey: string, channelId: string) => `${setKey}_${channelId}`;

/**
 * The webhook-id a receiver sees: stable across retries (Standard Webhooks receivers drop a repeat),
 * and a digest of the key, because the key holds the uid and the uid decodes to an address.
 */
export const webhookMessageId = (key: string) => `msg_${sha256Hex(key).slice(0, 32)}`;

export function newMessageRow(input: {
  uid: string;
  channelId: string;
  channel: ChannelKind;
  kind: MessageKind;
  deliveryIds: string[];
  body: string;
  runId: string;
  now: Date;
  expireAt: Date;
}): MessageRow {
  return {
    uid: input.uid,
    channelId: input.channelId,
    channel: input.channel,
    kind: input.kind,
    deliveryIds: input.deliveryIds,
    status: 'pending',
    attempts: 0,
    leaseOwner: null,
    leaseUntil: null,
    // Set from the start: the dispatcher's query asks for pending rows whose time has come.
    notBefore: input.now,
    lastError: null,
    detail: null,
    body: input.body,
    bodyHash: sha256Hex(input.body),
    runId: input.runId,
    createdAt: input.now,
    firstAttemptAt: null,
    sentAt: null,
    expireAt: input.expireAt,
  };
}

const dateFields = ['leaseUntil', 'notBefore', 'createdAt', 'firstAttemptAt', 'sentAt', 'expireAt'] as const;

export const messageRowConverter: FirestoreDataConverter<MessageRow> = {
  toFirestore: (row) => {
    const data: Record<string, unknown> = { ...row };
    for (const field of dateFields) if (field in data) data[field] = toTimestamp(data[field] as Date | null);
    return data;
  },
  fromFirestore: (snap) => {
    const d = snap.data() as Stored<MessageRow>;
    return {
      uid: d.uid,
      channelId: d.channelId,
      channel: d.channel,
      kind: d.kind,
      deliveryIds: d.deliveryIds ?? [],
      status: d.status,
      attempts: d.attempts ?? 0,
      leaseOwner: d.leaseOwner ?? null,
      leaseUntil: toDate(d.leaseUntil),
      notBefore: toDate(d.notBefore),
      lastError: d.lastError ?? null,
      detail: d.detail ?? null,
      body: d.body ?? null,
      bodyHash: d.bodyHash ?? '',
      runId: d.runId,
      createdAt: toDate(d.createdAt)!,
      firstAttemptAt: toDate(d.firstAttemptAt),
      sentAt: toDate(d.sentAt),
      expireAt: toDate(d.expireAt)!,
    };
  },
};

export const messagesCollection = (db: Firestore) => db.collection(COLLECTIONS.messages).withConverter(messageRowConverter);
