import type { MemberResult } from './deliver-send-batch';
import type { EmailKind } from './outbox-row';
import type { QuotaHit } from '../ledger/runs';

export type DispatchStats = {
  sent: Record<EmailKind, number>;
  skipped: number;
  failed: number;
  dead: number;
  retried: number;
  deferred: number;
  fenced: number;
  /** Held rows (signup emails placed in a later hour's allowance) whose time came this run: now pending. */
  heldDue: number;
  /** Provider requests that carried more than one email. */
  batches: number;
  /** Set when the provider refused a send for quota: the run sent nothing after that. */
  quota: QuotaHit | null;
  /**
   * The budget ran out before the outbox was listed (or listed to its end): rows may be waiting
   * that this run never looked at, so the run is partial even with nothing counted as deferred.
   */
  unlisted: boolean;
};

/** Keeps one batch request well under provider body limits even for long digests. */
export const MAX_BATCH_BYTES = 3_000_000;

export const emptyDispatchStats = (): DispatchStats => ({
  sent: { alert: 0, digest: 0, confirm: 0, manage: 0, welcome: 0, channel: 0 },
  skipped: 0,
  failed: 0,
  dead: 0,
  retried: 0,
  deferred: 0,
  fenced: 0,
  heldDue: 0,
  batches: 0,
  quota: null,
  unlisted: false,
});

export function countResult(stats: DispatchStats, result: MemberResult, kind: EmailKind) {
  if (result === 'sent') stats.sent[kind] += 1;
  else if (result === 'released' || result === 'quota') stats.deferred += 1;
  else stats[result] += 1;
}

/** The run's two senders (rows it created, rows it found) as one dispatch. */
export function addDispatchStats(a: DispatchStats, b: DispatchStats): DispatchStats {
  const sent = { ...a.sent };
  for (const kind of Object.keys(b.sent) as EmailKind[]) sent[kind] += b.sent[kind];
  return {
    sent,
    skipped: a.skipped + b.skipped,
    failed: a.failed + b.failed,
    dead: a.dead + b.dead,
    retried: a.retried + b.retried,
    deferred: a.deferred + b.deferred,
    fenced: a.fenced + b.fenced,
    heldDue: a.heldDue + b.heldDue,
    batches: a.batches + b.batches,
    quota: a.quota ?? b.quota,
    unlisted: a.unlisted || b.unlisted,
  };
}
