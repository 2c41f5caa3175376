import type { Firestore } from 'firebase-admin/firestore';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import type { Posting } from '../../lib/feeds/posting';
import type { Mailer } from '../../lib/mail/mailer';
import type { EmailPayload } from '../../lib/mail/email-payload';
import type { SendOutcome } from '../../lib/mail/send-outcome';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { instrumentFirestore, type FirestoreCounter } from '../../scripts/bench/firestore-counter';
import { naiveDeliveries, runNaiveCycle } from '../../scripts/bench/naive-cycle';

const now = new Date('2026-11-30T06:00:00Z');
let db: Firestore;
let counter: FirestoreCounter;

const posting = (id: string, title: string): Posting => ({
  id: `bench_${id}`,
  source: 'bench',
  guid: id,
  title,
  url: `https://jobs.example.com/${id}`,
  description: title,
  budget: null,
  skills: [],
  publishedAt: now,
});
const postings = [posting('a', 'React engineer'), posting('b', 'Go developer'), posting('c', 'React and Go')];

/** The first request of every email is refused with a 429, then accepted. */
function fakeMailer() {
  const sent: EmailPayload[] = [];
  const seen = new Set<string>();
  const mailer: Mailer = {
    async send(payload, { idempotencyKey }): Promise<SendOutcome> {
      if (!seen.has(idempotencyKey)) {
        seen.add(idempotencyKey);
        return { kind: 'refused', retryable: true, status: 429, error: 'rate limited', retryAfterMs: 1 };
      }
      sent.push(payload);
      return { kind: 'accepted', providerId: `p${sent.length}` };
    },
    sendBatch: () => Promise.reject(new Error('the naive cycle sends one email per request')),
  };
  return { mailer, sent };
}

beforeAll(async () => {
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  process.env.METADATA_SERVER_DETECTION = 'none';
  db = createFirestore({ projectId: `bench-naive-${Date.now()}-${process.pid}` });
  await addActiveSubscriber(db, { email: 'react@example.com', keywords: ['react'], mode: 'instant' }, now);
  await addActiveSubscriber(db, { email: 'go@example.com', keywords: ['go'], mode: 'daily' }, now);
  await addActiveSubscriber(db, { email: 'rust@example.com', keywords: ['rust'], mode: 'instant' }, now);
  counter = instrumentFirestore();
});
afterAll(() => counter.restore());

describe('naive cycle (the bench baseline)', () => {
  it('scores every pair, then one get and one set per candidate, one request per email', async () => {
    const { mailer, sent } = fakeMailer();
    counter.reset();
    const result = await runNaiveCycle({ db, mailer }, { postings, now, runId: 'naive-1', fromAddress: 'Scout <a@scout.test>' });
    expect(result).toMatchObject({ candidates: 4, deliveriesWritten: 4, emails: 1, emailsSkipped: 0, providerRequests: 2 });
    expect(sent.map((p) => [p.to, p.subject])).toEqual([['react@example.com', '2 new jobs for you']]);
    // 1 users query (3 docs) + per candidate 1 get + 1 set.
    expect(counter.snapshot()).toEqual({ reads: 3 + 4, writes: 4, roundTrips: 1 + 4 * 2 });
    const rows = (await naiveDeliveries(db).get()).docs.map((d) => d.data());
    expect(rows.map((d) => d.status).sort()).toEqual(['queued', 'queued', 'sending', 'sending']);
  });

  it('a second run finds every delivery and writes and sends nothing; sendLimit caps the sends', async () => {
    const { mailer, sent } = fakeMailer();
    counter.reset();
    const again = await runNaiveCycle({ db, mailer }, { postings, now, runId: 'naive-2', fromAddress: 'a@scout.test' });
    expect(again).toMatchObject({ candidates: 4, deliveriesWritten: 0, emails: 0, providerRequests: 0 });
    expect(counter.snapshot()).toEqual({ reads: 3 + 4, writes: 0, roundTrips: 1 + 4 });

    const more = [posting('d', 'React lead'), posting('e', 'Rust dev')];
    const capped = await runNaiveCycle(
      { db, mailer },
      { postings: more, now, runId: 'naive-3', fromAddress: 'a@scout.test', sendLimit: 1 },
    );
    expect(capped).toMatchObject({ candidates: 2, deliveriesWritten: 2, emails: 1, emailsSkipped: 1 });
    expect(sent).toHaveLength(1);
  });
});
