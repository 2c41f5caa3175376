import { FieldValue } from 'firebase-admin/firestore';
import { afterEach, describe, expect, it } from 'vitest';
import { batchKeyFor, outboxCollection } from '../../lib/outbox/outbox-row';
import { createHarness, type Harness } from '../support/harness';
import { hashPayload } from '../../lib/mail/email-payload';
import { payloadBytes } from '../../lib/store/atomic-writes';
import { dispatchAt } from '../support/dispatch';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

/**
 * An email's payload is most of its row's bytes, and the outbox keeps rows for RETENTION_DAYS.
 * Once a row is final nothing can send it again, so its payload goes in the same write that makes
 * it final; the hash stays. Kept: a digest's, gzipped (an operator may resend the latest digest),
 * and a dead row's (an operator may retry it).
 */
const NOW = '2026-11-30T06:00:00Z';
let h: Harness;
afterEach(async () => h?.close());

const rowsOf = async () => (await h.db.collection('emails').get()).docs.map((d) => ({ id: d.id, ...d.data() }) as Record<string, any>);

describe('a final row keeps its hash, not its payload', () => {
  it('a sent alert drops its payload; a dead alert keeps it, and a sent digest keeps it gzipped', async () => {
    h = await createHarness({}, { SEND_MAX_ATTEMPTS: 3 });
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    await h.subscribe({ email: 'cid@example.com', keywords: ['react'], mode: 'daily' });
    // 06:00 Ada's alert, alone in its request, is refused for good (dead).
    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
    await h.setFaults({ failNext: { count: 1, status: 422, name: 'validation_error' } });
    await h.run({ now: NOW });
    await h.setFaults({});
    // 06:15 Bea joins, and a new posting reaches her: her alert goes out.
    await h.subscribe({ email: 'bea@example.com', keywords: ['react'] });
    h.serveFeed(postingsAbout('react', 1, { at: new Date('2026-11-30T06:15:00Z'), prefix: 'second' }));
    await h.run({ now: '2026-11-30T06:15:00Z' });
    // 08:05 Cid's digest.
    await h.run({ now: '2026-11-30T08:05:00Z' });

    const rows = await rowsOf();
    const sentAlert = rows.find((r) => r.kind === 'alert' && r.status === 'sent')!;
    const deadAlert = rows.find((r) => r.kind === 'alert' && r.status === 'dead')!;
    const digest = rows.find((r) => r.kind === 'digest')!;
    expect(sentAlert).not.toHaveProperty('payload');
    expect(sentAlert.payloadHash).toMatch(/^[0-9a-f]{64}$/);
    expect(deadAlert.payload.subject).toEqual(expect.any(String));
    // The digest keeps it gzipped: a quarter of its bytes or less, read back whole (the hash still matches).
    expect(digest).toMatchObject({ status: 'sent', payloadGzip: expect.any(Buffer) });
    expect(digest).not.toHaveProperty('payload');
    const kept = (await outboxCollection(h.db).doc(digest.id).get()).data()!;
    expect(kept.payload).toMatchObject({ subject: expect.stringMatching(/digest/) });
    expect(hashPayload(kept.payload!)).toBe(digest.payloadHash);
    expect(digest.payloadGzip.length).toBeLessThan(payloadBytes(kept.payload!) / 4);
    expect(await h.inbox()).toHaveLength(3);
  });
});

describe('a batch settled from its sent member', () => {
  it('a member recorded sent proves the batch went out: its stale sibling is recorded sent, and nothing is sent again', async () => {
    h = await createHarness();
    for (const email of ['ada@example.com', 'bea@example.com', 'cid@example.com'])
      await h.subscribe({ email, keywords: ['react'], mode: 'instant' });
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    // A run refused for the provider's quota hands its alerts back untried: three pending rows.
    await h.setFaults({ quotaExceeded: 'daily' });
    await h.run({ now: NOW });
    await h.setFaults({});
    const [a, b, c] = (await outboxCollection(h.db).where('status', '==', 'pending').get()).docs.map((d) => d.id).sort();

    // A sender packed a and b into one send batch, the provider accepted it, and the sender died after
    // recording a (its payload gone with it) and before recording b, whose lease has run out.
    const batchKey = batchKeyFor([a, b]);
    const packed = {
      status: 'sending',
      batchKey,
      batchMembers: [a, b],
      attempts: 1,
      leaseOwner: 'dead-run',
      leaseUntil: new Date('2026-11-30T06:02:00Z'),
      firstAttemptAt: new Date('2026-11-30T06:00:30Z'),
    };
    await h.db
      .collection('emails')
      .doc(a)
      .update({ ...packed, status: 'sent', sentAt: new Date('2026-11-30T06:00:31Z'), payload: FieldValue.delete() });
    await h.db.collection('emails').doc(b).update(packed);

    const stats = await dispatchAt(h, '2026-11-30T06:15:00Z', { runId: 'recovering-run', batchSize: 100 });
    const rows = new Map((await rowsOf()).map((r) => [r.id, r]));
    expect(rows.get(b)).toMatchObject({ status: 'sent', batchKey });
    expect(rows.get(b)).not.toHaveProperty('payload');
    // Only the row nobody had sent went out: c, alone.
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(1);
    expect(inbox[0].to).toEqual([Buffer.from(rows.get(c)!.uid, 'base64url').toString()]);
    expect(stats.sent.alert).toBe(2);
  });
});
