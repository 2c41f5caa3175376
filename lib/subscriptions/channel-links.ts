import { randomBytes } from 'node:crypto';
import type { DocumentSnapshot, Firestore, WriteBatch } from 'firebase-admin/firestore';
import { VERIFY_WINDOW_MS, type Channel } from '../channels/channel';
import { COLLECTIONS } from '../store/collections';
import { toDate } from '../store/timestamps';
import type { Subscriber } from '../subscribers/subscriber';
import { changeChannels, findChannel, isFailure, refuse, replaced, type ChannelWriteResult } from './channel-writes';
import { sha256, withFreshVerification } from './channel-verification';

/**
 * Telegram's side of the channels (docs/channels.md "The Telegram bot"). Scout cannot message a
 * chat before its person writes to the bot, so the page gives a start link,
 * `https://t.me/{bot}?start={token}`: pressing Start sends `/start {token}` to the bot, which binds
 * that chat to the channel. The token is one-time and random (24 bytes, 32 base64url characters:
 * Telegram's start parameter takes A–Z a–z 0–9 _ - up to 64) and stored only as its sha256:
 *
 *   channelLinks/{sha256(token)}           → uid, channelId, expireAt (the TTL policy's); usedAt, usedByChat once bound
 *   channelLinks/chat_{chatId}_{channelId} → chatId, uid, channelId: what /stop removes
 *
 * The chat documents are one per bound channel, not one per chat: two subscriptions (two addresses
 * of one person) may both send to the same chat, and /stop ends both.
 */

export const channelLinksCollection = (db: Firestore) => db.collection(COLLECTIONS.channelLinks);
const startLinkRef = (db: Firestore, hash: string) => channelLinksCollection(db).doc(hash);
export const chatLinkRef = (db: Firestore, chatId: string, channelId: string) =>
  channelLinksCollection(db).doc(`chat_${chatId}_${channelId}`);

/** A start token and what is stored of it. */
export function newStartToken(): { token: string; hash: string } {
  const token = randomBytes(24).toString('base64url');
  return { token, hash: sha256(token) };
}

export const startLinkUrl = (botUsername: string, token: string) => `https://t.me/${botUsername}?start=${token}`;

/** The start link's lookup document, written in the same batch as the channel it binds. */
export function createStartLink(batch: WriteBatch, db: Firestore, input: { hash: string; uid: string; channelId: string; now: Date }) {
  batch.create(startLinkRef(db, input.hash), {
    uid: input.uid,
    channelId: input.channelId,
    createdAt: input.now,
    expireAt: new Date(input.now.getTime() + VERIFY_WINDOW_MS),
  });
}

/** "New link": the channel's pending token replaced, the old link's document gone with it in one batch. */
export async function replaceStartLink(
  db: Firestore,
  input: { uid: string; now: Date; channelId: string; seen: string | null; hash: string },
): Promise<ChannelWriteResult<Channel>> {
  return changeChannels<Channel>(db, input, (_subscriber, channels) => {
    const channel = findChannel(channels, input.channelId, input.seen);
    if (isFailure(channel)) return { fail: channel };
    if (channel.kind !== 'telegram' || channel.status !== 'verifying') return refuse('This channel is not waiting for Telegram.');
    const next = withFreshVerification(channel, input.hash, input.now);
    return {
      write: replaced(channels, next),
      value: next,
      alongside: (batch) => {
        if (channel.verifyHash) batch.delete(startLinkRef(db, channel.verifyHash));
        createStartLink(batch, db, { hash: input.hash, uid: input.uid, channelId: channel.id, now: input.now });
      },
    };
  });
}

/** What a channel leaves behind when it goes: its start link, or its chat's link. Added to the batch that removes it. */
export function deleteChannelLinks(batch: WriteBatch, db: Firestore, channel: Channel) {
  if (channel.kind !== 'telegram') return;
  if (channel.verifyHash) batch.delete(startLinkRef(db, channel.verifyHash));
  if (channel.destination) batch.delete(chatLinkRef(db, channel.destination, channel.id));
}

export type ChatBinding =
  | { outcome: 'bound'; subscriber: Subscriber; channel: Channel }
  /** This chat was bound by this token before: a redelivered update. Nothing to do, nothing to say. */
  | { outcome: 'repeat' }
  | { outcome: 'expired' | 'used' | 'unknown' };

/**
 * `/start {token}` from a private chat: binds the chat to the token's channel, once. The binding is
 * the guarded update of the subscriber (the channel must still hold this token's hash: only one
 * writer can replace it), and in the same batch the link is marked used by this chat, so a
 * redelivery of the same update (Telegram retries, possibly at once) finds it and stays silent.
 * Who the link belongs to is never said to the chat.
 */
export async function bindChat(db: Firestore, input: { token: string; chatId: string; label: string; now: Date }): Promise<ChatBinding> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(input.token)) return { outcome: 'unknown' };
  const hash = sha256(input.token);
  const link = await startLinkRef(db, hash).get();
  const stored = readStartLink(link);
  if (!stored) return { outcome: 'unknown' };
  if (stored.usedBy !== null) return stored.usedBy === input.chatId ? { outcome: 'repeat' } : { outcome: 'used' };
  if (stored.expireAt.getTime() <= input.now.getTime()) return { outcome: 'expired' };
  const result = await changeChannels<ChatBinding>(db, { uid: stored.uid, now: input.now }, (subscriber, channels) => {
    const channel = channels.find((c) => c.id === stored.channelId);
    if (!channel || channel.kind !== 'telegram') return { keep: { outcome: 'unknown' } };
    if (channel.verifyHash !== hash) return { keep: channel.destination === input.chatId ? { outcome: 'repeat' } : { outcome: 'used' } };
    const next: Channel = {
      ...channel,
      status: 'active',
      destination: input.chatId,
      label: input.label,
      verifyHash: null,
      verifyExpiresAt: null,
      verifyTries: 0,
      verifiedAt: input.now,
    };
    return {
      write: replaced(channels, next),
      value: { outcome: 'bound', subscriber: { ...subscriber, channels: replaced(channels, next) }, channel: next },
      alongside: (batch) => {
        batch.set(startLinkRef(db, hash), { usedAt: input.now, usedByChat: input.chatId }, { merge: true });
        batch.set(chatLinkRef(db, input.chatId, channel.id), {
          chatId: input.chatId,
          uid: stored.uid,
          channelId: channel.id,
          createdAt: input.now,
        });
      },
    };
  });
  return result.ok ? result.value : { outcome: 'unknown' };
}

function readStartLink(snap: DocumentSnapshot) {
  if (!snap.exists) return null;
  const uid: unknown = snap.get('uid');
  const channelId: unknown = snap.get('channelId');
  const expireAt = toDate(snap.get('expireAt'));
  if (typeof uid !== 'string' || typeof channelId !== 'string' || !expireAt) return null;
  const usedBy: unknown = snap.get('usedByChat');
  return { uid, channelId, expireAt, usedBy: typeof usedBy === 'string' ? usedBy : null };
}

/**
 * `/stop` in a chat: every channel bound to it removed, whoever's, each by its subscriber's guarded
 * update with the chat's link deleted in the same batch. Answers how many went.
 */
export async function unbindChat(db: Firestore, input: { chatId: string; now: Date }): Promise<number> {
  const links = await channelLinksCollection(db).where('chatId', '==', input.chatId).get();
  let removed = 0;
  for (const link of links.docs) {
    const uid: unknown = link.get('uid');
    const channelId: unknown = link.get('channelId');
    if (typeof uid !== 'string' || typeof channelId !== 'string') continue;
    const result = await changeChannels(db, { uid, now: input.now }, (_subscriber, channels) => {
      const channel = channels.find((c) => c.id === channelId && c.kind === 'telegram' && c.destination === input.chatId);
      if (!channel) return { keep: false };
      return { write: channels.filter((c) => c !== channel), value: true, alongside: (batch) => batch.delete(link.ref) };
    });
    if (result.ok && result.value) removed++;
    // A subscriber who is gone, or a channel already removed, leaves only the link: it goes too.
    else await link.ref.delete();
  }
  return removed;
}
