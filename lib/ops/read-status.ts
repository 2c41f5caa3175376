import type { Firestore } from 'firebase-admin/firestore';
import { runsCollection } from '../cycle/runs';
import { deliveriesCollection } from '../ledger/delivery';
import { toDate, utcDay } from '../ledger/timestamps';
import { outboxCollection, type OutboxStatus } from '../outbox/outbox-row';

/** What an operator asks first: what is due, what failed, what ran, and who holds the lock. */
export type OpsStatus = {
  day: string;
  outbox: Record<Exclude<OutboxStatus, 'sent' | 'skipped'>, number>;
  /** Subscribers' delivery pages with queued items due in a digest today or earlier. */
  digestPagesDue: number;
  /** Failed and dead emails, newest first (at most `limit`). */
  failures: { emailKey: string; kind: string; status: string; attempts: number; lastError: string | null }[];
  runs: {
    runId: string;
    status: string;
    trigger: string;
    startedAt: Date | null;
    durationMs: number | null;
    emails: number;
    errors: string[];
  }[];
  lock: { owner: string; expiresAt: Date | null; held: boolean } | null;
};

const OPEN_STATUSES = ['pending', 'sending', 'failed', 'dead'] as const;

/** Counts come from aggregation queries (one read per 1,000 documents counted), never by fetching the rows. */
export async function readOpsStatus(db: Firestore, input: { now: Date; limit?: number }): Promise<OpsStatus> {
  const day = utcDay(input.now);
  const limit = input.limit ?? 5;
  const [counts, due, failures, runs, lock] = await Promise.all([
    Promise.all(OPEN_STATUSES.map(async (status) => (await outboxCollection(db).where('status', '==', status).count().get()).data().count)),
    deliveriesCollection(db).where('pendingDigest', '<=', day).count().get(),
    outboxCollection(db).where('status', 'in', ['failed', 'dead']).orderBy('createdAt', 'desc').limit(limit).get(),
    runsCollection(db).orderBy('startedAt', 'desc').limit(limit).get(),
    db.collection('locks').doc('scan').get(),
  ]);
  return {
    day,
    outbox: Object.fromEntries(OPEN_STATUSES.map((status, i) => [status, counts[i]])) as OpsStatus['outbox'],
    digestPagesDue: due.data().count,
    failures: failures.docs.map((d) => {
      const row = d.data();
      return { emailKey: d.id, kind: row.kind, status: row.status, attempts: row.attempts, lastError: row.lastError };
    }),
    runs: runs.docs.map((d) => ({
      runId: d.id,
      status: d.get('status') ?? 'unknown',
      trigger: d.get('trigger') ?? '',
      startedAt: toDate(d.get('startedAt')),
      durationMs: d.get('durationMs') ?? null,
      emails: d.get('stats.emailsSent') ?? 0,
      errors: d.get('errors') ?? [],
    })),
    lock: lock.exists
      ? {
          owner: lock.get('owner'),
          expiresAt: toDate(lock.get('expiresAt')),
          held: (toDate(lock.get('expiresAt'))?.getTime() ?? 0) > input.now.getTime(),
        }
      : null,
  };
}
