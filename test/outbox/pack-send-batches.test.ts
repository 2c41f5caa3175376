import { describe, expect, it } from 'vitest';
import { MAX_BATCH_EMAILS } from '../../lib/mail/mailer';
import { packSendBatches, type HandedRow } from '../../lib/outbox/run-sender';
import { MAX_BATCH_BYTES } from '../../lib/outbox/dispatch-stats';
import { batchBytesOf, newOutboxRow, payloadOf } from '../../lib/outbox/outbox-row';
import { MAX_BATCH_WRITES } from '../../lib/store/create-documents';
import { MAX_COMMIT_BYTES, payloadBytes } from '../../lib/store/atomic-writes';

/**
 * A packed send batch is created in one commit and sent in one provider request, so it must fit both:
 * Firestore's request size (the emulator's gRPC limit is 4 MiB and a commit past it hangs rather
 * than failing; production's is 10 MiB), its writes per batch, and the provider's batch. Neither
 * the emulator nor the sink enforces all of these, so they are computed here.
 */
const NOW = new Date('2026-11-30T06:00:00Z');

function rows(n: number, input: { htmlBytes: number; keyChars: number; writes: number }): HandedRow[] {
  return Array.from({ length: n }, (_, i) => {
    const uid = `${'u'.repeat(input.keyChars)}${String(i).padStart(5, '0')}`;
    const row = newOutboxRow({
      uid,
      kind: 'digest',
      deliveryIds: Array.from({ length: input.writes - 1 }, (_, j) => `${uid}_job${j}`),
      payload: {
        from: 'a@b.c',
        to: `${uid}@example.com`,
        subject: 'Subject',
        html: 'h'.repeat(input.htmlBytes),
        text: 't'.repeat(input.htmlBytes / 4),
        headers: {},
      },
      runId: 'run-1',
      now: NOW,
      expireAt: NOW,
    });
    return { emailKey: `digest_${uid}_2026-11-30`, row, writes: input.writes };
  });
}

describe('packed send batches fit one commit and one provider batch', () => {
  it.each([
    ['small alerts', { htmlBytes: 12_000, keyChars: 30, writes: 6 }],
    ['5-item digests', { htmlBytes: 15_000, keyChars: 30, writes: 1 }],
    ['20-item digests', { htmlBytes: 45_000, keyChars: 30, writes: 1 }],
    ['long addresses (keys near 256 characters)', { htmlBytes: 15_000, keyChars: 230, writes: 1 }],
    ['25-item alerts', { htmlBytes: 50_000, keyChars: 40, writes: 26 }],
  ])('%s', (_name, shape) => {
    const sendBatches = packSendBatches(rows(1_000, shape), { batchSize: MAX_BATCH_EMAILS, runId: 'run-1', now: NOW });
    expect(sendBatches.reduce((n, s) => n + s.members.length, 0)).toBe(1_000);
    for (const sendBatch of sendBatches) {
      expect(sendBatch.members.length).toBeLessThanOrEqual(MAX_BATCH_EMAILS);
      expect(sendBatch.members.reduce((n, m) => n + m.writes, 0)).toBeLessThanOrEqual(MAX_BATCH_WRITES);
      expect(sendBatch.members.reduce((n, m) => n + batchBytesOf(m.row), 0)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
      // What the commit carries: every stored row as written, packing included (JSON as a stand-in for the wire encoding).
      const stored = sendBatch.members.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(sendBatch.stored(m))), 0);
      expect(stored).toBeLessThanOrEqual(MAX_COMMIT_BYTES);
      expect(sendBatch.members.reduce((n, m) => n + payloadBytes(payloadOf(m.row)), sendBatch.packBytes)).toBeLessThanOrEqual(
        MAX_COMMIT_BYTES,
      );
    }
  });

  it('only a last send batch that ran out of rows short of the batch size is open (a caller with more rows coming may hold it back)', () => {
    const at = (n: number) =>
      packSendBatches(rows(n, { htmlBytes: 100, keyChars: 10, writes: 1 }), { batchSize: 100, runId: 'r', now: NOW });
    expect(at(250).map((s) => [s.members.length, s.open])).toEqual([
      [100, false],
      [100, false],
      [50, true],
    ]);
    expect(at(200).map((s) => s.open)).toEqual([false, false]);
    expect(at(1).map((s) => s.open)).toEqual([true]);
  });

  it('a send batch of one is not packed: it goes alone under its own key', () => {
    const [only] = packSendBatches(rows(1, { htmlBytes: 100, keyChars: 10, writes: 1 }), { batchSize: 100, runId: 'r', now: NOW });
    expect(only.key).toBeNull();
    expect(only.stored(only.members[0])).toMatchObject({ status: 'sending', batchKey: null, batchMembers: null, attempts: 1 });
  });

  it('the stored row is what a lease and a packing would have written: leased to the run, first attempt at creation', () => {
    const [sendBatch] = packSendBatches(rows(3, { htmlBytes: 100, keyChars: 10, writes: 1 }), { batchSize: 100, runId: 'run-7', now: NOW });
    const stored = sendBatch.stored(sendBatch.members[1]);
    expect(stored).toMatchObject({ status: 'sending', leaseOwner: 'run-7', firstAttemptAt: NOW, attempts: 1, batchKey: sendBatch.key });
    expect(stored.batchMembers).toEqual(sendBatch.members.map((m) => m.emailKey));
    expect(stored.leaseUntil!.getTime()).toBeGreaterThan(NOW.getTime());
  });
});
