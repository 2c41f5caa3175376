import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../runtime/config';
import type { FeedFetch } from '../feeds/fetch-feed';
import type { Mailer } from '../mail/mailer';
import type { SendLimiter } from '../mail/send-limiter';
import type { CyclePhase } from '../ledger/runs';
import type { Failpoint } from '../runtime/failpoints';
import type { Logger } from '../runtime/logger';
import type { Shard } from '../runtime/shard';
import type { VerdictClient } from '../verdicts/ask-verdicts';
import type { ChannelSender } from '../messages/dispatch-messages';

/** Everything the cycle touches, passed in: tests swap the failpoints and the clock, never the database. */
export type CycleDeps = {
  db: Firestore;
  mailer: Mailer;
  /** Feed fetching only: undici's fetch (see FeedFetch). */
  fetch: FeedFetch;
  config: Config;
  failpoint: Failpoint;
  log: Logger;
  /** Real elapsed time, for the run's budget; the run's *clock* may be overridden by ?now=. */
  wallClock: () => number;
  sleep: (ms: number) => Promise<void>;
  /**
   * The process's one send limiter: every provider request of this instance passes it (a run's
   * own limiter goes through it, and so does an email sent at signup), so an instance never
   * exceeds SEND_RATE_PER_SEC. Instances do not share it; see the signup emails' global cap.
   */
  sendLimiter: SendLimiter;
  /**
   * The model server of the optional AI verdict stage (createVerdictClient), built once per
   * instance; null or absent while the stage is off, and then no run asks anything.
   */
  verdictClient?: VerdictClient | null;
  /**
   * The channels' platforms (Slack, Discord, Telegram, webhooks): one limiter per destination and
   * the send, built once per instance. Absent: the run creates channel messages but sends none.
   */
  channelSender?: ChannelSender | null;
  /** Optional: wraps each phase of the cycle (the bench counts store operations per phase with it). */
  trace?: <T>(phase: CyclePhase, step: () => Promise<T>) => Promise<T>;
};

export type CycleOptions = {
  now?: Date;
  dryRun: boolean;
  trigger: string;
  /** This caller's part of the subscribers (`?shard=k&shards=n`); absent, the run handles everybody. */
  shard?: Shard;
  /** locks/{lockName}; by default `scan`, or `scan-k-of-n` for a shard. Tests also use distinct names to prove the ledger alone holds. */
  lockName?: string;
  /** The run's id, when the caller must be able to name the run even if it throws (the endpoint's 500). */
  runId?: string;
};
