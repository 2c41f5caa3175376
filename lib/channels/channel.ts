import { randomBytes } from 'node:crypto';
import { toDate, toTimestamp } from '../store/timestamps';

/**
 * Channels beyond email (docs/channels.md): where else a subscriber's postings go. They live on the
 * subscriber's own document (`users/{uid}.channels`), a handful at most, so the preferences page,
 * the dispatcher's opt-out check and unsubscribing read and write them with the subscriber.
 *
 *   verifying → active ⇄ paused
 *        any  → disabled (the destination answered "gone")   removed: no longer in the list
 *
 * A channel gets nothing before it is verified: Slack and Discord by a code the test message
 * carries, typed back on the page; Telegram by the subscriber pressing Start in Scout's bot; a
 * webhook by answering a signed test event with 2xx.
 */
export const CHANNEL_KINDS = ['slack', 'discord', 'telegram', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export const CHANNEL_STATUSES = ['verifying', 'active', 'paused', 'disabled'] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

/** How a kind is named on a page or in an email. */
export const CHANNEL_KIND_NAMES: Record<ChannelKind, string> = {
  slack: 'Slack',
  discord: 'Discord',
  telegram: 'Telegram',
  webhook: 'Webhook',
};

/** Channels a subscriber may have at once: each is another send per alert, and the document carries them. */
export const MAX_CHANNELS = 5;

/** How long a verification code or a Telegram start link works, and how many wrong codes it takes. */
export const VERIFY_WINDOW_MS = 60 * 60 * 1000;
export const MAX_VERIFY_TRIES = 5;

export type Channel = {
  /** Opaque and random, fixed for the channel's life: message keys are built from it. */
  id: string;
  kind: ChannelKind;
  status: ChannelStatus;
  /** Gets an alert whenever a run finds new matches (the default for a new channel). */
  instant: boolean;
  /** Gets a copy of each digest the subscriber's schedule sends (daily or weekly subscribers). */
  digest: boolean;
  /** slack, discord, webhook: the URL posted to; telegram: the chat id, '' until the chat is bound. */
  destination: string;
  /** What a page shows of the destination without giving away its secret part. */
  label: string;
  /** webhook: the signing secret (`whsec_` + base64), shown to the subscriber once; null for the others. */
  secret: string | null;
  /** verifying: sha256 of the code sent (slack, discord), of the start token (telegram); null once verified. */
  verifyHash: string | null;
  verifyExpiresAt: Date | null;
  verifyTries: number;
  createdAt: Date;
  verifiedAt: Date | null;
  /** disabled: when and why (e.g. `gone: 404 no_service`), shown on the page and the ops page. */
  disabledAt: Date | null;
  disabledReason: string | null;
};

/** What the claim and the flush need of a channel: which messages to create for it. Only active channels route. */
export type ChannelRoute = Pick<Channel, 'id' | 'kind' | 'instant' | 'digest'>;

export const newChannelId = () => randomBytes(9).toString('base64url');

export const routesOf = (channels: readonly Channel[] | undefined): ChannelRoute[] =>
  (channels ?? []).filter((c) => c.status === 'active').map(({ id, kind, instant, digest }) => ({ id, kind, instant, digest }));

/** `kind:status` of each channel, stored beside them so the ops page counts channels with count() queries. */
export const channelStatesOf = (channels: readonly Channel[]) => [...new Set(channels.map((c) => `${c.kind}:${c.status}`))];

/**
 * The fields a write of a subscriber's channels sets: the list and its `channelStates`, always
 * together (a writer of one without the other would make the ops page's counts wrong).
 */
export function channelFields(channels: readonly Channel[]) {
  return { channels: channels.map(storeChannel), channelStates: channelStatesOf(channels) };
}

const storeChannel = (c: Channel) => ({
  ...c,
  verifyExpiresAt: toTimestamp(c.verifyExpiresAt),
  createdAt: toTimestamp(c.createdAt),
  verifiedAt: toTimestamp(c.verifiedAt),
  disabledAt: toTimestamp(c.disabledAt),
});

const isKind = (v: unknown): v is ChannelKind => (CHANNEL_KINDS as readonly unknown[]).includes(v);
const isStatus = (v: unknown): v is ChannelStatus => (CHANNEL_STATUSES as readonly unknown[]).includes(v);
const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** The stored list back as channels; an entry this code cannot read is left out (it routes nothing). */
export function readChannels(stored: unknown): Channel[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((raw: unknown): Channel[] => {
    if (!raw || typeof raw !== 'object') return [];
    const d = raw as Record<string, unknown>;
    const id = str(d.id);
    if (!id || !isKind(d.kind) || !isStatus(d.status)) return [];
    return [
      {
        id,
        kind: d.kind,
        status: d.status,
        instant: d.instant === true,
        digest: d.digest === true,
        destination: str(d.destination) ?? '',
        label: str(d.label) ?? '',
        secret: str(d.secret),
        verifyHash: str(d.verifyHash),
        verifyExpiresAt: toDate(d.verifyExpiresAt),
        verifyTries: typeof d.verifyTries === 'number' ? d.verifyTries : 0,
        createdAt: toDate(d.createdAt) ?? new Date(0),
        verifiedAt: toDate(d.verifiedAt),
        disabledAt: toDate(d.disabledAt),
        disabledReason: str(d.disabledReason),
      },
    ];
  });
}
