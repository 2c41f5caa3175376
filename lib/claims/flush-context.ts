import type { Firestore } from 'firebase-admin/firestore';
import type { SourceCoverage } from '../feeds/source-coverage';
import type { FilteredOut, ScoredPosting } from '../mail/compose-email';
import type { EmailPayload } from '../mail/email-payload';
import type { RunSender } from '../outbox/run-sender';
import type { Failpoint } from '../runtime/failpoints';
import type { DigestSchedule } from '../subscribers/digest-schedule';
import type { Subscriber } from '../subscribers/subscriber';
import type { Judge } from '../verdicts/judge-postings';
import type { PostingsById } from './digest-postings';
import type { SubscriberMessagesOf } from '../messages/subscriber-messages';

export type ComposeDigest = (input: {
  subscriber: Subscriber;
  items: ScoredPosting[];
  moreCount: number;
  /** The digest's period: the subscriber's local date (`2026-12-02`) or ISO week (`2026-W49`). */
  day: string;
  filteredOut: FilteredOut;
  /** What the sources covered, for the footer: read once per flush, the same for every digest of it. */
  coverage: SourceCoverage | null;
}) => Promise<EmailPayload>;

/** What every part of one flush shares: its dependencies, its clock and settings, and what it reads once. */
export type FlushContext = {
  db: Firestore;
  failpoint: Failpoint;
  composeDigest: ComposeDigest;
  /** Subscribers' channel messages: a digest's copies for their digest channels, created with its row. */
  channelMessages: SubscriberMessagesOf;
  now: Date;
  /** The deployment's digest hour, for subscribers who chose none (DIGEST_HOUR_UTC). */
  digestHourUtc: number;
  runId: string;
  maxItems: number;
  expireAt: Date;
  commit: boolean;
  judge: Judge | null;
  /** The run's sender for the rows it creates: digest rows are then created leased and packed into send batches, and sent as they land. */
  runSender: RunSender | null;
  /** Postings by id, each read once by this flush; a dry run's planned (unwritten) ones from its plan. */
  postings: PostingsById;
  /**
   * feeds/ read once, when the first digest is composed: a flush with nothing due reads nothing. A
   * failed read leaves the footer line out rather than the digest unsent.
   */
  coverage: () => Promise<SourceCoverage | null>;
  /**
   * Since when every flush has run on this deployment's digest hour (digest-rows.ts): read when
   * the flush starts, and recorded, when it changed, before anything is claimed.
   */
  hourSince: Promise<Date>;
  /** The period of a schedule's latest slot at `now`: worked out once per schedule (subscribers share a few). */
  periodNow: (schedule: DigestSchedule) => string;
  composeBatchBytes: number;
};
