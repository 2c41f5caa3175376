import { toDate } from '../store/timestamps';
import type { QuotaHit } from '../ledger/runs';

/** The provider's quota as the newest runs saw it, for the ops page and `scout status`. */
export type QuotaNotice = QuotaHit & { runId: string };

/** A run as this decision needs it: what it recorded of a quota, and how many emails it got out. */
export type RunQuotaView = { runId: string; quota: QuotaHit | null; emailsSent: number };

/**
 * Runs newest first. The quota is reached while the newest run that says anything about it hit it:
 * a run that met the quota says so; a run that got emails out without meeting it says it has
 * cleared. A run that sent nothing (nothing to send, or still running) says neither.
 */
export function providerQuotaNotice(runs: RunQuotaView[]): QuotaNotice | null {
  for (const run of runs) {
    if (run.quota) return { ...run.quota, runId: run.runId };
    if (run.emailsSent > 0) return null;
  }
  return null;
}

/** The words the issue asks the operator to see, with the time in ISO 8601 UTC. */
export const quotaNoticeText = (notice: Pick<QuotaNotice, 'resumesAt'>, at: (d: Date) => string = (d) => d.toISOString()) =>
  `provider quota reached; sending resumes at ${at(notice.resumesAt)}`;

/** runs/{runId}.quota as stored (Timestamps), or null for a run that met no quota. */
export function readRunQuota(value: unknown): QuotaHit | null {
  if (typeof value !== 'object' || value === null) return null;
  const q = value as Record<string, unknown>;
  const reachedAt = toDate(q.reachedAt);
  const resumesAt = toDate(q.resumesAt);
  if (!reachedAt || !resumesAt || (q.period !== 'daily' && q.period !== 'monthly')) return null;
  return { period: q.period, reachedAt, resumesAt, error: typeof q.error === 'string' ? q.error : '' };
}
