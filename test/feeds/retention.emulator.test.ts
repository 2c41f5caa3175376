import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../lib/store/timestamps';
import { pruneLedger } from '../../lib/ops/prune-ledger';
import { createHarness, type Harness } from '../support/harness';

const T0 = new Date('2026-11-01T06:00:00Z');
const at = (days: number) => addDays(T0, days).toISOString();
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
});
afterEach(async () => h.close());

const item = (guid: string, pubDate?: Date) => ({
  guid,
  title: `React developer ${guid}`,
  link: `https://jobs.example.com/${guid}`,
  description: 'React work',
  ...(pubDate ? { pubDate: pubDate.toUTCString() } : {}),
});

describe('retention: pruning never makes an old posting look new', () => {
  it('a dated posting older than RETENTION_DAYS, pruned while the feed still lists it, is ignored before matching', async () => {
    h.serveFeed([item('dated', T0)]);
    expect((await h.cron({ now: at(0) })).body.instantEmails).toBe(1);
    const days = h.config.RETENTION_DAYS;
    await pruneLedger(h.db, { now: new Date(at(days + 1)), limit: 1_000 });
    expect((await h.db.collection('jobs').get()).size).toBe(0);
    h.serveFeed([item('dated', T0), { ...item('other'), title: 'COBOL maintainer', description: 'COBOL' }]);

    const later = await h.cron({ now: at(days + 1) });
    expect(later.body).toMatchObject({ jobsFetched: 2, jobsNew: 1, instantEmails: 0 });
    expect((await h.db.collection('jobs').get()).docs.map((d) => d.get('guid'))).toEqual(['other']);
    expect(await h.inbox()).toHaveLength(1);
  });

  it('an undated posting the feed keeps listing has its expiry renewed, so neither prune nor TTL deletes it and it never alerts twice', async () => {
    h.serveFeed([item('undated')]);
    expect((await h.cron({ now: at(0) })).body.instantEmails).toBe(1);
    const days = h.config.RETENTION_DAYS;
    for (let d = 1; d <= 3 * days; d += Math.floor(days / 3)) {
      // A changing neighbour keeps the feed's ETag moving, so every fetch re-reads the undated item.
      h.serveFeed([item('undated'), { ...item(`other-${d}`), title: `COBOL maintainer ${d}`, description: 'COBOL' }]);
      await pruneLedger(h.db, { now: new Date(at(d)), limit: 1_000 });
      const r = (await h.cron({ now: at(d) })).body;
      // Only the neighbour is new: the undated posting's document is still there, so it is not stored (or matched) again.
      expect({ fetched: r.jobsFetched, new: r.jobsNew }).toEqual({ fetched: 2, new: 1 });
    }
    expect(await h.inbox()).toHaveLength(1);
    // Once the feed drops it, it expires RETENTION_DAYS later like everything else.
    h.serveFeed([]);
    await h.cron({ now: at(3 * days + 1) });
    await pruneLedger(h.db, { now: new Date(at(5 * days)), limit: 1_000 });
    expect((await h.db.collection('jobs').get()).size).toBe(0);
  });

  it('prune keeps what is still due: a pending outbox row, a channel message on its way and a queued delivery survive their expireAt', async () => {
    const expired = new Date(at(-1));
    await h.db.collection('emails').doc('alert_due').set({ status: 'pending', expireAt: expired });
    await h.db.collection('emails').doc('alert_done').set({ status: 'sent', expireAt: expired });
    // messages/: the channels' outbox, walked by id like emails/ (its expireAt has no index).
    await h.db.collection('messages').doc('alert_u_h_pending').set({ status: 'pending', expireAt: expired });
    await h.db.collection('messages').doc('alert_u_h_sending').set({ status: 'sending', expireAt: expired });
    await h.db.collection('messages').doc('alert_u_h_sent').set({ status: 'sent', expireAt: expired });
    await h.db.collection('messages').doc('alert_u_h_dead').set({ status: 'dead', expireAt: expired });
    await h.db
      .collection('messages')
      .doc('digest_u_live')
      .set({ status: 'sent', expireAt: new Date(at(10)) });
    await h.db.collection('deliveries').doc('uid_rss_queued').set({ status: 'queued', digestDate: '2026-10-02', expireAt: expired });
    await h.db.collection('deliveries').doc('uid_rss_sent').set({ status: 'sent', digestDate: '2026-10-02', expireAt: expired });
    await h.db
      .collection('runs')
      .doc('run-new')
      .set({ expireAt: new Date(at(10)) });

    const report = await pruneLedger(h.db, { now: T0, limit: 1_000 });
    expect(report).toMatchObject({
      deleted: { emails: 1, messages: 2, deliveries: 1, runs: 0 },
      kept: { emails: 1, messages: 2, deliveries: 1 },
      more: false,
    });
    const left = async (c: string) => (await h.db.collection(c).get()).docs.map((d) => d.id).sort();
    expect(await left('emails')).toEqual(['alert_due']);
    expect(await left('messages')).toEqual(['alert_u_h_pending', 'alert_u_h_sending', 'digest_u_live']);
    expect(await left('deliveries')).toEqual(['uid_rss_queued']);
    expect(await left('runs')).toEqual(['run-new']);
  });

  it('where expireAt has no index (deliveries), prune walks by document id from where it stopped: a small limit still reaches every expired document', async () => {
    const expired = new Date(at(-1));
    const fresh = new Date(at(10));
    const batch = h.db.batch();
    for (let i = 0; i < 7; i++) {
      // Expired and live documents interleaved in id order, and one still queued for a digest.
      const status = i === 3 ? 'queued' : 'sent';
      batch.set(h.db.collection('deliveries').doc(`u_${i}`), { status, expireAt: i % 2 === 0 ? fresh : expired });
    }
    await batch.commit();
    const reports = [];
    for (let call = 0; call < 4; call++) reports.push(await pruneLedger(h.db, { now: T0, limit: 3 }));
    const left = (await h.db.collection('deliveries').get()).docs.map((d) => d.id).sort();
    // u_1 and u_5 expired and went; u_3 expired but is still queued; the even ones live on.
    expect(left).toEqual(['u_0', 'u_2', 'u_3', 'u_4', 'u_6']);
    // Three documents a call: u_0–u_2, u_3–u_5, u_6 (the end: the next call starts over), u_0–u_3.
    expect(reports.map((r) => r.deleted.deliveries)).toEqual([1, 1, 0, 0]);
    expect(reports.map((r) => r.kept.deliveries)).toEqual([0, 1, 0, 1]);
    expect(reports.map((r) => r.more)).toEqual([true, true, false, true]);
  });
});
