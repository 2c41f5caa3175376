import { createHash } from 'node:crypto';
import type { ChannelKind } from './channel';
import type { ChannelRateLimit, ChannelSendOutcome } from './channel-outcome';

/**
 * Paces sends per destination, from each platform's documented limits (docs/channels.md,
 * "Limits"): a send waits for its destination's turn instead of earning a 429. In-process: each
 * instance keeps its own, which is enough because a message's lease keeps one sender on it and
 * every 429 is still honoured (the outcome is `refused` with the platform's wait, and `hold`
 * keeps this instance off the destination for that long).
 */
export type DestinationPolicy = {
  /** At most this many sends start in any window of `perMs`. */
  sends: number;
  perMs: number;
  /** At most this many sends in flight at once (webhooks: a receiver sees one at a time); null for no bound. */
  inFlight: number | null;
};

/** Slack: "no more than one message per second" per incoming webhook, short bursts tolerated. */
export const SLACK_POLICY: DestinationPolicy = { sends: 1, perMs: 1000, inFlight: null };
/** Discord: a webhook's bucket has allowed 5 per 2 s; its headers (observe) override this when they say less. */
export const DISCORD_POLICY: DestinationPolicy = { sends: 5, perMs: 2000, inFlight: null };
/**
 * Telegram counts sends as they arrive, a few milliseconds after this clock starts them, so Scout
 * keeps a margin under its limits: 1.05 s between two messages to a chat, and 28 of the bot's 30 a
 * second (the bench's strict stand-in refused a few sends at exactly 30).
 */
const TELEGRAM_MARGIN_MS = 50;
/** Telegram: "avoid sending more than one message per second" to one chat. */
export const TELEGRAM_CHAT_POLICY: DestinationPolicy = { sends: 1, perMs: 1000 + TELEGRAM_MARGIN_MS, inFlight: null };
/** Telegram: a bot "will not be able to send more than 20 messages per minute to the same group" (a shared chat). */
export const TELEGRAM_SHARED_CHAT_POLICY: DestinationPolicy = { sends: 20, perMs: 60_000, inFlight: null };
/** Telegram: "no more than about 30 messages per second" from one bot, across all chats. */
export const TELEGRAM_BOT_POLICY: DestinationPolicy = { sends: 28, perMs: 1000, inFlight: null };
/** A subscriber's receiver: Scout's own bound, one request at a time and 5 a second. */
export const WEBHOOK_POLICY: DestinationPolicy = { sends: 5, perMs: 1000, inFlight: 1 };

export type DestinationLimit = { key: string; policy: DestinationPolicy };

const hashOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/** The limiter's key for a destination: a hash, so no URL or token sits in memory dumps or logs under it. */
export const destinationKey = (kind: ChannelKind, destination: string): string => `${kind}:${hashOf(`${kind}\n${destination}`)}`;

/** Every limit a send to this destination takes, the narrowest first. Telegram's bot-wide limit needs the bot's token. */
export function destinationLimits(kind: ChannelKind, destination: string, telegramBotToken?: string): DestinationLimit[] {
  const key = destinationKey(kind, destination);
  if (kind === 'slack') return [{ key, policy: SLACK_POLICY }];
  if (kind === 'discord') return [{ key, policy: DISCORD_POLICY }];
  if (kind === 'webhook') return [{ key, policy: WEBHOOK_POLICY }];
  // A shared chat's id (Telegram's group chats and channels) is negative; a person's is positive.
  const shared = destination.startsWith('-') ? [{ key: `${key}:minute`, policy: TELEGRAM_SHARED_CHAT_POLICY }] : [];
  const bot = telegramBotToken ? [{ key: `telegram-bot:${hashOf(telegramBotToken)}`, policy: TELEGRAM_BOT_POLICY }] : [];
  return [{ key, policy: TELEGRAM_CHAT_POLICY }, ...shared, ...bot];
}

export type DestinationLimiter = {
  /** Waits until a send to `key` may start under `policy`, and counts it as started. */
  take(key: string, policy: DestinationPolicy): Promise<void>;
  /** Nothing starts to `key` for `ms` (a 429's retry-after, an exhausted bucket). */
  hold(key: string, ms: number): void;
  /** Discord's rate-limit headers after a send: an exhausted bucket holds the destination until it resets. */
  observe(key: string, rateLimit: ChannelRateLimit | undefined): void;
  /** Takes every limit in turn, then runs the send inside their in-flight bounds. */
  run<T>(limits: readonly DestinationLimit[], send: () => Promise<T>): Promise<T>;
  /**
   * What a send's outcome says of its destination (the first of `limits`): a refusal's
   * retry-after holds it, Discord's headers may. Call it after every send.
   */
  settle(limits: readonly DestinationLimit[], outcome: ChannelSendOutcome): void;
  /**
   * How long until a send to these limits could start (0: now), without taking a turn: a sender
   * with a time budget leaves a destination held past it (Telegram may ask for an hour) to a later run.
   */
  readyInMs(limits: readonly DestinationLimit[]): number;
};

type KeyState = { starts: number[]; heldUntil: number; inFlight: number; waiters: Array<() => void> };

/** Above this many keys, states with nothing to remember are dropped: memory follows active destinations. */
const PRUNE_ABOVE = 10_000;

export function createDestinationLimiter(deps: { clock: () => number; sleep: (ms: number) => Promise<void> }): DestinationLimiter {
  const states = new Map<string, KeyState>();
  const stateOf = (key: string) => {
    let state = states.get(key);
    if (!state) {
      if (states.size > PRUNE_ABOVE) prune(states, deps.clock());
      state = { starts: [], heldUntil: 0, inFlight: 0, waiters: [] };
      states.set(key, state);
    }
    return state;
  };

  /** When a start is allowed, or `now` if it is allowed already. */
  const readyAt = (state: KeyState, policy: DestinationPolicy, now: number) => {
    state.starts = state.starts.filter((at) => at > now - policy.perMs);
    const windowFree = state.starts.length < policy.sends ? now : state.starts[state.starts.length - policy.sends] + policy.perMs;
    return Math.max(windowFree, state.heldUntil, now);
  };

  const take = async (key: string, policy: DestinationPolicy) => {
    const state = stateOf(key);
    for (;;) {
      const now = deps.clock();
      const at = readyAt(state, policy, now);
      if (at <= now) {
        state.starts.push(now);
        return;
      }
      await deps.sleep(at - now);
    }
  };

  const hold = (key: string, ms: number) => {
    const state = stateOf(key);
    state.heldUntil = Math.max(state.heldUntil, deps.clock() + Math.max(0, ms));
  };

  const enter = async (key: string, bound: number) => {
    const state = stateOf(key);
    while (state.inFlight >= bound) await new Promise<void>((resolve) => state.waiters.push(resolve));
    state.inFlight += 1;
    return () => {
      state.inFlight -= 1;
      state.waiters.shift()?.();
    };
  };

  const run = async <T>(limits: readonly DestinationLimit[], send: () => Promise<T>): Promise<T> => {
    const releases: Array<() => void> = [];
    try {
      for (const { key, policy } of limits) {
        if (policy.inFlight !== null) releases.push(await enter(key, policy.inFlight));
        await take(key, policy);
      }
      return await send();
    } finally {
      for (const release of releases) release();
    }
  };

  const observe = (key: string, rateLimit: ChannelRateLimit | undefined) => {
    if (rateLimit && rateLimit.remaining === 0) hold(key, rateLimit.resetAfterMs);
  };

  const settle = (limits: readonly DestinationLimit[], outcome: ChannelSendOutcome) => {
    const [destination] = limits;
    if (!destination) return;
    if (outcome.status === 'refused' && outcome.retryAfterMs !== null) hold(destination.key, outcome.retryAfterMs);
    if (outcome.status === 'sent' || outcome.status === 'refused') observe(destination.key, outcome.rateLimit);
  };

  const readyInMs = (limits: readonly DestinationLimit[]) => {
    const now = deps.clock();
    return Math.max(0, ...limits.map(({ key, policy }) => readyAt(stateOf(key), policy, now) - now));
  };

  return { take, hold, observe, run, settle, readyInMs };
}

function prune(states: Map<string, KeyState>, now: number) {
  for (const [key, state] of states) {
    // A window is at most a minute (Telegram's shared chats); older starts no longer count.
    const idle = state.inFlight === 0 && state.waiters.length === 0 && state.heldUntil <= now;
    if (idle && state.starts.every((at) => at <= now - 60_000)) states.delete(key);
  }
}
