import { describe, it } from 'vitest';
import type { ChannelKind } from '../../lib/channels/channel';
import { newWebhookSecret } from '../../lib/channels/transports/webhook';
import { runCycle } from '../../lib/cycle/run-cycle';
import { createChannelSender } from '../../lib/messages/channel-sender';
import { MESSAGE_LEASE_MS } from '../../lib/messages/dispatch-messages';
import { messagesCollection } from '../../lib/messages/message-row';
import { InjectedCrash, noFailpoints, type Failpoint, type FailpointName } from '../../lib/runtime/failpoints';
import { utcDay } from '../../lib/store/timestamps';
import type { SubscriberInput } from '../../lib/subscribers/subscriber';
import {
  DEFAULT_TELEGRAM_BOT,
  startChannelStandIn,
  type ChannelStandIn,
  type FaultInput,
  type ReceivedRequest,
} from '../../scripts/channel-stand-in/server';
import { postingsAbout, type TestItem } from '../../scripts/sample-feed/rss-feed';
import { channelTable, checkChannelMessages, type ChannelDestinations } from '../support/channel-checker';
import { addChannel } from '../support/channels';
import { channelFields } from '../../lib/channels/channel';
import type { Shard } from '../../lib/runtime/shard';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import { guardedSubscriberUpdate } from '../../lib/subscribers/subscriber-writes';
import { createHarness, type Harness } from '../support/harness';
import { seededRandom } from '../support/seeded-random';

/**
 * The channels' chaos world: subscribers with Slack, Discord, Telegram and webhook channels on the
 * local stand-in, every stand-in fault at random (429 with a wait, 5xx, a dropped connection after
 * the message was taken, a request left hanging past the sender's timeout, now and then "gone"),
 * 1–8 overlapping invocations a tick with crashes at the cycle's claim and message failure points,
 * the clock crossing the digest hour; then clean settle runs. What each platform took is then
 * checked against messages/ (test/support/channel-checker.ts): instant alerts never twice, digests
 * never lost, and a digest twice on a chat platform only where a lost answer explains it
 * (docs/channels.md "What a subscriber may see after a crash").
 *
 * A crashed run is a dead process: after its failure point fires, every failure point it reaches
 * throws too, so its other destinations' workers stop at their next send or record, leaving their
 * leases for a later run to settle, as a killed instance would.
 *
 *   SCOUT_CHAOS_SEED=1234 npx vitest run test/messages/channel-chaos.emulator.test.ts    replay one seed
 *   npm run test:chaos                                                                      the long soak
 */
const seed = Number(process.env.SCOUT_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** 16 by default: from 05:00 by 15 minutes, the ticks cross the 08:00 digest hour. */
const ticks = Number(process.env.SCOUT_CHAOS_TICKS ?? 16);
const minInvocations = Number(process.env.SCOUT_CHAOS_MIN_INVOCATIONS ?? 0);

const START = new Date('2026-11-30T05:00:00Z');
const TICK_MS = 15 * 60_000;
/** The last whole UTC hour the ticks reach (at least the soak's minimum); a digest hour past it would wait for the settle runs. */
const LAST_TICK_HOUR = Math.min(23, Math.max(8, START.getUTCHours() + Math.floor((ticks * TICK_MS) / 3_600_000) - 1));
const KEYWORDS = ['react', 'python', 'firestore', 'django', 'figma', 'rust'] as const;
const KINDS: ChannelKind[] = ['slack', 'discord', 'telegram', 'webhook'];
const POINTS: FailpointName[] = [
  'after-claim',
  'after-digest-claim',
  'before-message-send',
  'after-message-send',
  'before-digest-commit',
  'before-delivery-commit',
];
/** Short enough that a hung request costs little; far above a loopback answer, so only a hang times out. */
const SEND_TIMEOUT_MS = 500;

type Random = ReturnType<typeof seededRandom>;
type WorldChannel = { uid: string; channelId: string; kind: ChannelKind; key: string };
type World = {
  random: Random;
  h: Harness;
  standIn: ChannelStandIn;
  run(options: { now: Date; lockName?: string; failpoint?: Failpoint; shard?: Shard }): Promise<any>;
  channels: WorldChannel[];
  destinations: ChannelDestinations;
  /** Channels the subscriber paused at some point: what they were owed depends on when. */
  pausedEver: Set<string>;
  feed: TestItem[];
  postingSeq: number;
};
type Injected = {
  invocations: number;
  pauses: number;
  crashes: number;
  crashesAt: Partial<Record<FailpointName, number>>;
  faults: Record<string, number>;
  /** Per message key, the sends whose answer a crash swallowed. */
  lostAnswers: Map<string, number>;
};

async function createWorld(random: Random): Promise<World> {
  const standIn = await startChannelStandIn({ port: 0 });
  const h = await createHarness(
    {
      SEND_RATE_PER_SEC: '100',
      CHANNEL_ALLOW_LOOPBACK: 'true',
      TELEGRAM_API_BASE_URL: standIn.url,
      TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token,
      TELEGRAM_BOT_USERNAME: DEFAULT_TELEGRAM_BOT.username,
    },
    { SEND_MAX_ATTEMPTS: 8, LOCK_TTL_MS: 10 * 60_000 },
  );
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  // The harness's sender waits 10 s on a hung request; this world's waits half a second.
  const deps = { ...h.deps, channelSender: createChannelSender(h.config, { clock: Date.now, sleep, timeoutMs: SEND_TIMEOUT_MS }) };
  const world: World = {
    random,
    h,
    standIn,
    run: (options) =>
      runCycle(
        { ...deps, failpoint: options.failpoint ?? noFailpoints },
        { now: options.now, dryRun: false, trigger: 'test', lockName: options.lockName, shard: options.shard },
      ),
    channels: [],
    destinations: new Map(),
    pausedEver: new Set(),
    feed: [],
    postingSeq: 0,
  };
  let seq = 0;
  const count = random.int(6, 12);
  for (let i = 0; i < count; i++) {
    const input: SubscriberInput = {
      email: `channels.sub${i}@example.com`,
      keywords: [...new Set([random.pick(KEYWORDS), random.pick(KEYWORDS)])],
      // The first is daily, so every seed has digests to send.
      mode: i === 0 || random.chance(0.5) ? 'daily' : 'instant',
    };
    // Half the daily subscribers at the default hour, half at another hour the ticks cross: digests
    // go out on many ticks, each under that tick's faults and crashes.
    if (input.mode === 'daily' && random.chance(0.5)) Object.assign(input, { timezone: 'UTC', digestHour: random.int(6, LAST_TICK_HOUR) });
    const uid = await h.subscribe(input);
    for (let c = random.int(1, 3); c > 0; c--) {
      seq += 1;
      const kind = random.pick(KINDS);
      // The digest is offered to a daily subscriber's channels only (an instant one has none to copy).
      const instant = input.mode === 'instant' || (seq > 1 && random.chance(0.6));
      const digest = input.mode === 'daily' && (!instant || random.chance(0.5));
      const { destination, key, secret } = destinationFor(standIn, random, kind, seq);
      const channel = await addChannel(h.db, uid, { kind, destination, instant, digest, secret });
      world.channels.push({ uid, channelId: channel.id, kind, key });
      world.destinations.set(channel.id, { kind, key });
    }
  }
  return world;
}

/** A unique destination of the kind on the stand-in, and its key there. */
function destinationFor(standIn: ChannelStandIn, random: Random, kind: ChannelKind, seq: number) {
  const n = String(seq).padStart(3, '0');
  if (kind === 'slack') {
    const key = `TCHAOS${n}/BCHAOS${n}/secret${n}`;
    return { destination: standIn.slackUrl(key), key, secret: null };
  }
  if (kind === 'discord') {
    // A snowflake: 17 to 19 digits.
    const key = `${random.int(1, 9)}${String(seq).padStart(random.int(16, 18), '0')}`;
    return { destination: standIn.discordUrl(key, `chaos-token-${n}`), key, secret: null };
  }
  if (kind === 'telegram') {
    const key = String(900_000_000 + seq);
    return { destination: key, key, secret: null };
  }
  const key = `chaos-hook-${n}`;
  return { destination: standIn.hookUrl(key), key, secret: newWebhookSecret() };
}

function addPostings(world: World, now: Date) {
  const { random } = world;
  for (let i = random.int(0, 4); i > 0; i--) {
    const keyword = random.pick(KEYWORDS);
    world.postingSeq += 1;
    const n = world.postingSeq;
    world.feed.push({
      guid: `channels-chaos-${n}`,
      title: `${keyword} role ${n}`,
      link: `https://jobs.example.com/channels-chaos/${n}`,
      description: `Work with ${keyword}.`,
      pubDate: new Date(now.getTime() - 60_000).toUTCString(),
    });
  }
  world.h.serveFeed(world.feed);
}

/**
 * The tick's platform faults: none, or 1–3, each for one destination (its platform's) or for every
 * destination (of one platform or all), for the next 1–3 requests. They stay armed until met (a
 * destination may send nothing for hours), on top of what earlier ticks left. "Gone" is rare and
 * always one destination's: it disables the channel for good.
 */
function injectFaults(world: World, injected: Injected) {
  const { random, standIn } = world;
  if (random.chance(0.35)) return;
  for (let i = random.int(1, 3); i > 0; i--) {
    const target = random.chance(0.6) ? random.pick(world.channels) : null;
    const roll = random.next();
    const fault: FaultInput['fault'] =
      roll < 0.25 ? 'rate-limit' : roll < 0.5 ? 'server-error' : roll < 0.72 ? 'drop' : roll < 0.97 || !target ? 'hang' : 'gone';
    const where: Pick<FaultInput, 'destination' | 'platform'> = target
      ? { destination: target.key, platform: target.kind }
      : { destination: '*', ...(random.chance(0.5) && { platform: random.pick(KINDS) }) };
    standIn.inject({
      ...where,
      fault,
      times: fault === 'gone' ? 1 : random.int(1, 3),
      // The stand-in's schema wants a positive wait: 0 s is not a wait it can name.
      ...(fault === 'rate-limit' && { retryAfterSeconds: random.pick([1, 2]) }),
      ...(fault === 'server-error' && { status: random.pick([500, 502, 503]) }),
    });
    injected.faults[fault] = (injected.faults[fault] ?? 0) + 1;
  }
}

/**
 * A run that crashes at `point` and is dead from then on: every failure point it reaches after
 * that throws as well. A send whose answer it swallows (after-message-send) is counted per message.
 */
function crashAt(point: FailpointName, injected: Injected): Failpoint {
  let dead = false;
  return async (name, context) => {
    if (!dead && name !== point) return;
    if (!dead) {
      dead = true;
      injected.crashes += 1;
      injected.crashesAt[name] = (injected.crashesAt[name] ?? 0) + 1;
    }
    if (name === 'after-message-send' && context?.messageKey) {
      injected.lostAnswers.set(context.messageKey, (injected.lostAnswers.get(context.messageKey) ?? 0) + 1);
    }
    throw new InjectedCrash(name);
  };
}

/**
 * A subscriber pauses a channel, or resumes one they paused, as the preferences page does: one
 * guarded write of the stored list, racing the tick's runs (opt-outs win at the send).
 */
async function togglePause(world: World, target: WorldChannel) {
  world.pausedEver.add(target.channelId);
  await guardedSubscriberUpdate(subscribersCollection(world.h.db).doc(target.uid), (snap) => {
    const toggled = (status: string) => (status === 'active' ? ('paused' as const) : ('active' as const));
    const channels = (snap.data()?.channels ?? []).map((c) =>
      c.id !== target.channelId || c.status === 'disabled' ? c : { ...c, status: toggled(c.status) },
    );
    return { update: channelFields(channels), result: undefined };
  });
}

/** What each platform answered other than taking the message, from the stand-in's log: proof each kind met each fault. */
function faultsMet(requests: ReceivedRequest[]) {
  const met: Partial<Record<ChannelKind, Record<string, number>>> = {};
  for (const r of requests) {
    const what =
      r.outcome !== 'answered'
        ? r.outcome
        : r.status === 429
          ? '429'
          : (r.status ?? 0) >= 500
            ? '5xx'
            : r.accepted
              ? null
              : String(r.status);
    if (!what) continue;
    const of = (met[r.platform] ??= {});
    of[what] = (of[what] ?? 0) + 1;
  }
  return met;
}

/** Messages not final yet. */
async function unsettled(world: World): Promise<number> {
  const rows = await messagesCollection(world.h.db).where('status', 'in', ['pending', 'sending']).get();
  return rows.size;
}

async function soak(world: World) {
  const { random } = world;
  const injected: Injected = { invocations: 0, pauses: 0, crashes: 0, crashesAt: {}, faults: {}, lostAnswers: new Map() };
  let now = START;
  let tick = 0;
  for (; tick < ticks || injected.invocations < minInvocations; tick++) {
    addPostings(world, now);
    injectFaults(world, injected);
    const concurrency = random.int(1, 8);
    const defeatLock = random.chance(0.4);
    const runs = Array.from({ length: concurrency }, (_, i) => {
      const failpoint = random.chance(0.35) ? crashAt(random.pick(POINTS), injected) : undefined;
      // Sharded and unsharded callers mixed, with shard counts that disagree, as the email chaos does.
      const count = random.chance(0.3) ? random.pick([2, 3]) : 0;
      const shard = count > 0 ? { index: random.int(0, count - 1), count } : undefined;
      const lockName = defeatLock ? `channels-chaos-${tick}-${i}` : undefined;
      return world.run({ now, lockName, failpoint, shard }).catch((error: unknown) => {
        if (!(error instanceof InjectedCrash)) throw error;
      });
    });
    injected.invocations += concurrency;
    const pause = random.chance(0.15) ? togglePause(world, random.pick(world.channels)) : null;
    if (pause) injected.pauses += 1;
    await Promise.all([...runs, pause]);
    now = new Date(now.getTime() + TICK_MS);
  }

  // Settle: no faults; each run past every lease and every wait a platform or a backoff named; the next day's digest hour reached.
  world.standIn.clearFaults();
  const settleDay = new Date(`${utcDay(new Date(now.getTime() + 86_400_000))}T08:30:00Z`);
  const settleRuns = [new Date(now.getTime() + 30 * 60_000), new Date(now.getTime() + 3 * 3_600_000), settleDay];
  let at = settleDay;
  for (const when of settleRuns) await settleRun(world, when);
  for (let extra = 0; extra < 8 && (await unsettled(world)) > 0; extra++) {
    at = new Date(at.getTime() + Math.max(MESSAGE_LEASE_MS, 10 * 60_000));
    await settleRun(world, at);
  }
  return { tick, injected, lastRun: at };
}

async function settleRun(world: World, at: Date) {
  const result = await world.run({ now: at });
  if (result.kind !== 'ran') throw new Error(`settle run at ${at.toISOString()} did not run: ${JSON.stringify(result)}`);
}

describe(`channels under random faults (seed ${seed})`, () => {
  it(
    'each platform: instant alerts never twice, digests never lost, a digest repeated only where a lost answer explains it',
    { timeout: 900_000 },
    async ({ expect }) => {
      console.log(
        `channel chaos seed ${seed}, ${ticks} ticks (replay: SCOUT_CHAOS_SEED=${seed} SCOUT_CHAOS_TICKS=${ticks} SCOUT_CHAOS_MIN_INVOCATIONS=${minInvocations} npx vitest run test/messages/channel-chaos.emulator.test.ts)`,
      );
      const started = Date.now();
      const world = await createWorld(seededRandom(seed ^ 0xc4a77e1));
      try {
        const { tick, injected, lastRun } = await soak(world);
        const requests = world.standIn.received({ all: true });
        const report = await checkChannelMessages(world.h.db, requests, {
          destinations: world.destinations,
          lostAnswers: injected.lostAnswers,
          pausedEver: world.pausedEver,
        });
        const byKind = Object.fromEntries(KINDS.map((k) => [k, world.channels.filter((c) => c.kind === k).length]));
        console.log(
          `channel chaos seed ${seed}: ${tick} ticks to ${lastRun.toISOString()}, ${injected.invocations} invocations, ${injected.crashes} crashes ${JSON.stringify(injected.crashesAt)}, ` +
            `faults ${JSON.stringify(injected.faults)}, ${injected.pauses} pauses or resumes, ${requests.length} platform requests; channels ${JSON.stringify(byKind)}; ${((Date.now() - started) / 1000).toFixed(0)} s\n` +
            `  faults met, by platform: ${JSON.stringify(faultsMet(requests))}\n` +
            `${channelTable(report)}\n` +
            `  digest repeats a lost answer explains: ${report.explainedDigestRepeats.length ? report.explainedDigestRepeats.join('; ') : 'none'}`,
        );
        expect.soft(report.stuck).toEqual([]);
        expect.soft(report.repeatedAlerts).toEqual([]);
        expect.soft(report.unexplainedDigestRepeats).toEqual([]);
        expect.soft(report.carriedTwice).toEqual([]);
        expect.soft(report.unexplainedSkips).toEqual([]);
        expect.soft(report.alertsNeverPlanned).toEqual([]);
        expect.soft(report.digestsNeverPlanned).toEqual([]);
        for (const kind of KINDS) {
          expect.soft(report.counts[kind].alert, `${kind} alerts`).toMatchObject({ duplicated: 0, lost: 0, unexpected: 0 });
          expect.soft(report.counts[kind].digest, `${kind} digests`).toMatchObject({ lost: 0, unexpected: 0 });
        }
        // A webhook's repeats carry one id, and its receiver drops them: nothing twice, digests included.
        expect.soft(report.counts.webhook.digest.duplicated).toBe(0);
        // The world reached what it is for: digests went out, on more than one platform.
        const digests = KINDS.reduce((n, kind) => n + report.counts[kind].digest.attempted, 0);
        expect.soft(digests).toBeGreaterThan(0);
        expect(await unsettled(world)).toBe(0);
      } finally {
        await world.h.close();
        await world.standIn.close();
      }
    },
  );
});

describe('the channel checker', () => {
  it(
    'counts what it is for: a chat alert posted twice, a webhook repeat its receiver drops, a body no row sent, a row that never arrived',
    { timeout: 120_000 },
    async ({ expect }) => {
      const world = await createWorld(seededRandom(1));
      const { h, standIn } = world;
      try {
        const now = new Date('2026-11-30T06:00:00Z');
        const uid = await h.subscribe({ email: 'checked@example.com', keywords: ['kotlin'], mode: 'instant' });
        for (const [seq, kind] of (['slack', 'telegram', 'webhook'] as const).entries()) {
          const { destination, key, secret } = destinationFor(standIn, world.random, kind, 900 + seq);
          const channel = await addChannel(h.db, uid, { kind, destination, instant: true, digest: false, secret });
          world.destinations.set(channel.id, { kind, key });
        }
        const daily = await h.subscribe({ email: 'digested@example.com', keywords: ['kotlin'], mode: 'daily' });
        const { destination, key } = destinationFor(standIn, world.random, 'discord', 903);
        const digestChannel = await addChannel(h.db, daily, { kind: 'discord', destination, instant: false, digest: true });
        world.destinations.set(digestChannel.id, { kind: 'discord', key });
        h.serveFeed(postingsAbout('kotlin', 1, { at: now }));
        await world.run({ now });
        await world.run({ now: new Date('2026-11-30T08:05:00Z') });
        const sent = standIn.received();
        const clean = await checkChannelMessages(h.db, standIn.received({ all: true }), {
          destinations: world.destinations,
          lostAnswers: new Map(),
        });
        for (const kind of ['slack', 'telegram', 'webhook'] as const)
          expect(clean.counts[kind].alert).toMatchObject({ attempted: 1, received: 1, lost: 0, duplicated: 0 });

        // The same bytes again, as a sender that lost the answer would post them.
        const again = (request: (typeof sent)[number], url: string) =>
          fetch(url, {
            method: 'POST',
            body: request.rawBody,
            headers: { 'content-type': 'application/json', ...pick(request.headers, /^webhook-/) },
          });
        const slack = sent.find((r) => r.platform === 'slack')!;
        const telegram = sent.find((r) => r.platform === 'telegram')!;
        const webhook = sent.find((r) => r.platform === 'webhook')!;
        await again(slack, standIn.slackUrl(slack.destination));
        await again(telegram, `${standIn.url}/bot${DEFAULT_TELEGRAM_BOT.token}/sendMessage`);
        await again(webhook, standIn.hookUrl(webhook.destination));
        const digest = sent.find((r) => r.platform === 'discord')!;
        await again(digest, standIn.discordUrl(digest.destination, 'chaos-token-903'));
        await fetch(standIn.slackUrl(slack.destination), {
          method: 'POST',
          body: JSON.stringify({ text: 'no row sent this' }),
          headers: { 'content-type': 'application/json' },
        });

        const report = await checkChannelMessages(h.db, standIn.received({ all: true }), {
          destinations: world.destinations,
          lostAnswers: new Map(),
        });
        expect(report.counts.slack.alert).toMatchObject({ duplicated: 1, unexpected: 1 });
        expect(report.counts.telegram.alert).toMatchObject({ duplicated: 1 });
        expect(report.counts.webhook.alert).toMatchObject({ duplicated: 0, repeatsDroppedByReceiver: 1 });
        expect(report.repeatedAlerts).toHaveLength(2);
        // A digest repeat is allowed only where an answer was lost: here none was, so it is flagged.
        expect(report.counts.discord.digest).toMatchObject({ attempted: 1, received: 1, duplicated: 1 });
        expect(report.unexplainedDigestRepeats).toHaveLength(1);
        const [digestRow] = (await messagesCollection(h.db).where('kind', '==', 'digest').get()).docs;
        const explained = await checkChannelMessages(h.db, standIn.received({ all: true }), {
          destinations: world.destinations,
          lostAnswers: new Map([[digestRow.id, 1]]),
        });
        expect(explained.unexplainedDigestRepeats).toEqual([]);
        expect(explained.explainedDigestRepeats).toHaveLength(1);

        // What the webhook took, forgotten: its row says sent, and nothing arrived.
        const lost = await checkChannelMessages(
          h.db,
          standIn.received({ all: true }).filter((r) => r.platform !== 'webhook'),
          {
            destinations: world.destinations,
            lostAnswers: new Map(),
          },
        );
        expect(lost.counts.webhook.alert).toMatchObject({ attempted: 1, received: 0, lost: 1 });
      } finally {
        await h.close();
        await standIn.close();
      }
    },
  );
});

const pick = (headers: Record<string, string>, name: RegExp) => Object.fromEntries(Object.entries(headers).filter(([k]) => name.test(k)));
