/**
 * `--channels <share>`: a share of the bench's subscribers with one active channel each, pointed at
 * the channel stand-in (scripts/channel-stand-in/) in a process of its own, as the mail sink runs
 * (sink-process.ts). What the bench then reports of them: the requests each kind's platform took
 * and refused (the stand-in's count), and the messages created, sent and failed per kind (the
 * store's count and the runs' stats).
 *
 * Who gets one: the share of the instant subscribers and the same share of the daily ones, each
 * spread evenly along its own sequence, and within each the kinds in turn (slack, discord,
 * telegram, webhook), so every kind has as many instant channels as digest ones. An instant
 * subscriber's channel takes instant alerts, a daily one's the digest only: the channel carries
 * the same deliveries the subscriber's email does, so what it costs is the channel's alone.
 */
import type { Firestore } from 'firebase-admin/firestore';
import { CHANNEL_KINDS, type Channel, type ChannelKind } from '../../lib/channels/channel';
import { parseDestination } from '../../lib/channels/destination';
import { newWebhookSecret } from '../../lib/channels/transports/webhook';
import type { ChannelRunStats, RunAnswer } from '../../lib/ledger/runs';
import { COLLECTIONS } from '../../lib/store/collections';
import { newChannel, verified } from '../../lib/subscriptions/channel-verification';
import { DEFAULT_TELEGRAM_BOT } from '../channel-stand-in/telegram-state';
import type { ReceivedRequest } from '../channel-stand-in/types';
import { startScriptProcess } from './script-process';

/** The stand-in in its own process, driven over its control API (/_stand-in/). */
export type ChannelStandInProcess = {
  url: string;
  /** The settings the app under bench needs to reach it: loopback allowed, Scout's bot at the stand-in. */
  env: Record<string, string>;
  /** Every request one platform's stand-in got: taken (answered 2xx or dropped after taking it) and refused (429, 5xx, gone). */
  requests(platform: ChannelKind): Promise<{ taken: number; refused: number }>;
  close(): Promise<void>;
};

/**
 * `--strict`: the stand-in enforces each platform's documented rate (Slack 1/s per webhook,
 * Discord 5 per 2 s per webhook, Telegram 1/s per chat and 30/s per bot), as the platforms do.
 */
export async function startChannelStandInProcess(): Promise<ChannelStandInProcess> {
  const { url, close } = await startScriptProcess(new URL('../channel-stand-in/cli.ts', import.meta.url), ['--port', '0', '--strict']);
  return {
    url,
    env: {
      CHANNEL_ALLOW_LOOPBACK: 'true',
      TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token,
      TELEGRAM_BOT_USERNAME: DEFAULT_TELEGRAM_BOT.username,
      TELEGRAM_API_BASE_URL: url,
    },
    async requests(platform) {
      const res = await fetch(`${url}/_stand-in/received?${new URLSearchParams({ platform, all: 'true' })}`);
      if (!res.ok) throw new Error(`channel stand-in received: ${res.status}`);
      const { received } = (await res.json()) as { received: ReceivedRequest[] };
      const taken = received.filter((r) => r.accepted).length;
      return { taken, refused: received.length - taken };
    },
    close,
  };
}

/**
 * Subscriber i's channel, or null. `i` is the bench's subscriber index (bench-world.ts: even
 * instant, odd daily); the channel is active and verified, as the preferences page leaves it.
 */
export function benchChannelOf(
  share: number,
  standInUrl: string,
  verifiedAt: Date,
): (i: number, mode: 'instant' | 'daily') => Channel | null {
  return (i, mode) => {
    // Its place among the subscribers of its cadence, and whether the share's count steps up there.
    const j = i >> 1;
    const nth = Math.floor((j + 1) * share);
    if (nth === Math.floor(j * share)) return null;
    const kind = CHANNEL_KINDS[(nth - 1) % CHANNEL_KINDS.length];
    const { destination, label } = benchDestination(kind, i, standInUrl);
    const channel = verified(
      newChannel({ kind, destination, label, secret: kind === 'webhook' ? newWebhookSecret() : null, verifyHash: null, now: verifiedAt }),
      verifiedAt,
    );
    return { ...channel, instant: mode === 'instant', digest: mode === 'daily' };
  };
}

/** A destination of its own per subscriber at the stand-in, checked as the preferences page checks one. */
function benchDestination(kind: ChannelKind, i: number, standInUrl: string): { destination: string; label: string } {
  const n = String(i).padStart(8, '0');
  if (kind === 'telegram') return { destination: String(100_000_000 + i), label: `Telegram chat ${i}` };
  const raw =
    kind === 'slack'
      ? `${standInUrl}/services/T00BENCH0/B${n}/bench${n}`
      : kind === 'discord'
        ? `${standInUrl}/api/webhooks/1${n.padStart(17, '0')}/bench-token-${n}`
        : `${standInUrl}/hooks/bench-${n}`;
  const parsed = parseDestination(kind, raw, { allowLoopback: true });
  if (!parsed.ok) throw new Error(`bench channel ${kind} ${raw}: ${parsed.error}`);
  return { destination: parsed.url, label: parsed.label };
}

/** Per channel kind: channels seeded, the platform's requests, and the messages the ledger made of them. */
export type BenchChannelKind = {
  channels: number;
  requests: { taken: number; refused: number };
  /** `waiting`: still pending (or leased) after the last run, e.g. held by a platform's retry-after. */
  messages: { created: { alert: number; digest: number }; sent: number; failed: number; waiting: number };
};
/**
 * What `--channels` adds to the bench's result. `share`: of the subscribers given a channel.
 * `runs`: the channels' stats of every run (the cycle, the runs after it and the idle run) added up.
 */
export type BenchChannels = {
  share: number;
  cadence: string;
  strictLimits: boolean;
  kinds: Record<ChannelKind, BenchChannelKind>;
  runs: Omit<ChannelRunStats, 'byChannel'>;
};

export const BENCH_CHANNEL_CADENCE = 'instant subscribers: instant alerts; daily subscribers: the digest';

/** The channels seeded per kind: every subscriber asked as seedSubscribers asks (bench-world.ts: odd i daily). */
export function channelsPerKind(subscribers: number, channelOf: ReturnType<typeof benchChannelOf>) {
  const counts = Object.fromEntries(CHANNEL_KINDS.map((k) => [k, 0])) as Record<ChannelKind, number>;
  for (let i = 0; i < subscribers; i++) {
    const channel = channelOf(i, i % 2 === 1 ? 'daily' : 'instant');
    if (channel) counts[channel.kind] += 1;
  }
  return counts;
}

/** After the runs, outside their counts: messages/ rows per channel kind and message kind, the stand-in's requests, the runs' stats. */
export async function measureChannels(input: {
  db: Firestore;
  standIn: ChannelStandInProcess;
  share: number;
  channels: Record<ChannelKind, number>;
  runs: RunAnswer[];
}): Promise<BenchChannels> {
  const stats = input.runs.map((r) => r.channels).filter((c): c is ChannelRunStats => c !== null && c !== undefined);
  const sum = (key: 'sent' | 'failed' | 'dead' | 'skipped' | 'retried' | 'disabled') => stats.reduce((n, c) => n + c[key], 0);
  const messages = input.db.collection(COLLECTIONS.messages);
  const created = async (kind: ChannelKind, messageKind: 'alert' | 'digest') =>
    (await messages.where('channel', '==', kind).where('kind', '==', messageKind).count().get()).data().count;
  const waiting = async (kind: ChannelKind) =>
    (await messages.where('channel', '==', kind).where('status', 'in', ['pending', 'sending']).count().get()).data().count;
  const kinds = {} as Record<ChannelKind, BenchChannelKind>;
  for (const kind of CHANNEL_KINDS) {
    kinds[kind] = {
      channels: input.channels[kind],
      requests: await input.standIn.requests(kind),
      messages: {
        created: { alert: await created(kind, 'alert'), digest: await created(kind, 'digest') },
        sent: stats.reduce((n, c) => n + (c.byChannel[kind]?.sent ?? 0), 0),
        failed: stats.reduce((n, c) => n + (c.byChannel[kind]?.failed ?? 0), 0),
        waiting: await waiting(kind),
      },
    };
  }
  return {
    share: input.share,
    cadence: BENCH_CHANNEL_CADENCE,
    strictLimits: true,
    kinds,
    runs: {
      sent: sum('sent'),
      failed: sum('failed'),
      dead: sum('dead'),
      skipped: sum('skipped'),
      retried: sum('retried'),
      disabled: sum('disabled'),
    },
  };
}

/** The channels' figures as the bench prints them: a table per kind, then the runs' totals. */
export function channelLines(c: BenchChannels): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const total = CHANNEL_KINDS.reduce((sum, k) => sum + c.kinds[k].channels, 0);
  return [
    `\nchannels (--channels ${c.share}): ${n(total)} subscribers with one active channel each (${c.cadence}), at the channel stand-in in its own process${c.strictLimits ? ", each platform's documented rate enforced" : ''}\n`,
    '| channel | channels | requests taken | requests refused | requests per channel | messages created (alert + digest) | sent | failed | waiting after the last run |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...CHANNEL_KINDS.map((k) => {
      const x = c.kinds[k];
      const created = x.messages.created;
      return `| ${k} | ${n(x.channels)} | ${n(x.requests.taken)} | ${n(x.requests.refused)} | ${((x.requests.taken + x.requests.refused) / Math.max(1, x.channels)).toFixed(2)} | ${n(created.alert + created.digest)} (${n(created.alert)} + ${n(created.digest)}) | ${n(x.messages.sent)} | ${n(x.messages.failed)} | ${n(x.messages.waiting)} |`;
    }),
    `the runs' channel stats, every run (the idle run included; sent and failed above are these, per kind): ${n(c.runs.sent)} sent, ${n(c.runs.failed)} failed, ${n(c.runs.dead)} dead, ${n(c.runs.skipped)} skipped, ${n(c.runs.retried)} tried again later, ${n(c.runs.disabled)} channels disabled`,
  ];
}
