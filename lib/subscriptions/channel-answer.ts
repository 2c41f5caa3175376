import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import type { Logger } from '../runtime/logger';
import { subscribersCollection, type Subscriber } from '../subscribers/subscriber';
import type { SendChannelTest } from './channel-test-message';
import type { ChannelWriteFailure, ChannelWriteResult } from './channel-writes';

/** The preferences page's channel actions (`action=channel-…`): channel-actions.ts and channel-status-actions.ts. */
export const CHANNEL_ACTIONS = [
  'channel-add',
  'channel-verify',
  'channel-new-code',
  'channel-new-link',
  'channel-test',
  'channel-rotate-secret',
  'channel-pause',
  'channel-resume',
  'channel-remove',
  'channel-cadence',
] as const;
export type ChannelAction = (typeof CHANNEL_ACTIONS)[number];
export const isChannelAction = (action: string): action is ChannelAction => (CHANNEL_ACTIONS as readonly string[]).includes(action);

export type ChannelActionDeps = {
  db: Firestore;
  config: Pick<
    Config,
    'LINK_SECRET' | 'APP_URL' | 'CHANNEL_ALLOW_LOOPBACK' | 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_BOT_USERNAME' 
  >;
  now: Date;
  log: Logger;
  /** Absent where nothing is ever sent (a page that only reads); an action that must send then fails as a server error. */
  sendChannelTest?: SendChannelTest;
};

/**
 * What the channels section shows besides the channels: what just happened, a secret or start link
 * shown this once, the removal waiting for its confirmation, the add form as sent with its error.
 */
export type ChannelPageState = {
  notice?: { tone: 'ok' | 'error'; text: string };
  /** Shown on this answer only: the store keeps the secret for signing, and only the hash of a start token. */
  reveal?: { channelId: string; secret?: string; startLink?: string };
  /** The channel whose Remove button was pressed: the section asks to confirm. */
  confirmRemove?: string;
  addForm?: { kind: string; url: string; error?: string };
};

/** The page to show again (with its HTTP status), or the failure the preferences page answers for any action. */
export type ChannelAnswer =
  | { kind: 'page'; status: number; subscriber: Subscriber; state: ChannelPageState }
  | { kind: 'failure'; failure: Extract<ChannelWriteFailure, { kind: 'unknown-subscriber' | 'not-editable' }> };

export const pageAnswer = (status: number, subscriber: Subscriber, state: ChannelPageState): ChannelAnswer => ({
  kind: 'page',
  status,
  subscriber,
  state,
});
export const okNotice = (text: string) => ({ tone: 'ok', text }) as const;
export const errorNotice = (text: string) => ({ tone: 'error', text }) as const;

/** A write's failure as the page answers it: the subscription's own state, or the channels as they are now with why. */
export async function failedAnswer(db: Firestore, uid: string, failure: ChannelWriteFailure): Promise<ChannelAnswer> {
  if (failure.kind === 'unknown-subscriber' || failure.kind === 'not-editable') return { kind: 'failure', failure };
  const fresh = (await subscribersCollection(db).doc(uid).get()).data();
  if (!fresh) return { kind: 'failure', failure: { ok: false, kind: 'unknown-subscriber' } };
  const text =
    failure.kind === 'no-channel'
      ? 'That channel is no longer there: nothing was changed.'
      : failure.kind === 'changed'
        ? 'That channel changed since this page was loaded (in another tab?). Here it is as it is now: nothing was changed.'
        : failure.message;
  return pageAnswer(failure.kind === 'refused' ? 400 : 409, fresh, { notice: errorNotice(text) });
}

/** The page with `state` when the write went through, the failure's answer otherwise. */
export async function answerWrite<T>(
  db: Firestore,
  uid: string,
  result: ChannelWriteResult<T>,
  state: (value: T) => ChannelPageState,
): Promise<ChannelAnswer> {
  return result.ok ? pageAnswer(200, result.subscriber, state(result.value)) : failedAnswer(db, uid, result);
}
