import type { Firestore } from 'firebase-admin/firestore';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { searchTermsOf } from '../../lib/archive/archive-search';
import { ARCHIVE_PAGE_SIZE, ARCHIVE_SCAN_LIMIT, readArchive, type ArchivePage } from '../../lib/archive/read-archive';
import { deliveryRef, type Delivery, type DeliveryStatus } from '../../lib/ledger/delivery';
import { COLLECTIONS } from '../../lib/store/collections';
import { addDays } from '../../lib/store/timestamps';
import { instrumentFirestore, type FirestoreCounter } from '../../scripts/bench/firestore-counter';
import { createHarness, type Harness } from '../support/harness';
import { putPosting } from '../support/postings';

const NOW = new Date('2026-11-30T06:00:00Z');
const MINUTE = 60_000;
let h: Harness;
let db: Firestore;
let uid: string;
let counter: FirestoreCounter;

beforeAll(() => {
  counter = instrumentFirestore();
});
afterAll(() => counter.restore());

beforeEach(async () => {
  h = await createHarness();
  db = h.db;
  uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
});
afterEach(async () => h.close());

type Line = {
  jobId: string;
  createdAt: Date;
  status?: DeliveryStatus;
  sentAt?: Date | null;
  mode?: string;
  emailKey?: string | null;
  reasons?: string[];
  fitReason?: string;
  uid?: string;
};

/** One ledger line as the cycle leaves it: a digest item marked sent, by default, sent when it was found. */
async function putLine(line: Line) {
  const status = line.status ?? 'sent';
  const delivery: Delivery = {
    uid: line.uid ?? uid,
    jobId: line.jobId,
    mode: (line.mode ?? 'daily') as Delivery['mode'],
    status,
    score: 70,
    reasons: line.reasons ?? ['“react” in the title'],
    ...(line.fitReason ? { fit: 80, fitReason: line.fitReason } : {}),
    emailKey: line.emailKey ?? null,
    digestDate: null,
    reason: null,
    runId: 'run-test',
    createdAt: line.createdAt,
    sentAt: line.sentAt === undefined ? (status === 'sent' ? line.createdAt : null) : line.sentAt,
    expireAt: addDays(line.createdAt, 30),
  };
  await deliveryRef(db, delivery.uid, delivery.jobId).set(delivery);
}

/** An alert's outbox row, as far as the archive reads it. */
const putAlertRow = (emailKey: string, status: string, sentAt: Date | null) =>
  db
    .collection(COLLECTIONS.emails)
    .doc(emailKey)
    .set({ uid, kind: 'alert', status, sentAt, payload: { html: 'x'.repeat(50_000) } });

const ago = (minutes: number) => new Date(NOW.getTime() - minutes * MINUTE);
const jobIds = (page: ArchivePage) => page.entries.map((e) => e.jobId);

describe('readArchive: what was sent', () => {
  it('shows digest and feed items marked sent and instant items whose alert went out; nothing queued, skipped, failed or not yet sent', async () => {
    await putLine({ jobId: 'rss_digest', createdAt: ago(10), sentAt: ago(5) });
    await putLine({ jobId: 'rss_feedonly', createdAt: ago(20), mode: 'feed' });
    await putLine({ jobId: 'rss_weekly', createdAt: ago(25), mode: 'weekly' });
    await putAlertRow('alert_sent', 'sent', ago(29));
    await putLine({ jobId: 'rss_alert', createdAt: ago(30), status: 'sending', mode: 'instant', emailKey: 'alert_sent' });
    await putAlertRow('alert_pending', 'pending', null);
    await putLine({ jobId: 'rss_alert_pending', createdAt: ago(31), status: 'sending', mode: 'instant', emailKey: 'alert_pending' });
    await putAlertRow('alert_dead', 'dead', null);
    await putLine({ jobId: 'rss_alert_dead', createdAt: ago(32), status: 'sending', mode: 'instant', emailKey: 'alert_dead' });
    await putLine({ jobId: 'rss_alert_no_row', createdAt: ago(33), status: 'sending', mode: 'instant', emailKey: 'alert_gone' });
    await putLine({ jobId: 'rss_queued', createdAt: ago(34), status: 'queued' });
    await putLine({ jobId: 'rss_skipped', createdAt: ago(35), status: 'skipped' });
    await putLine({ jobId: 'rss_failed', createdAt: ago(36), status: 'failed' });
    await putLine({ jobId: 'rss_other', createdAt: ago(1), uid: 'someone-else' });

    const page = await readArchive(db, { uid, now: NOW });
    expect(jobIds(page)).toEqual(['rss_digest', 'rss_feedonly', 'rss_weekly', 'rss_alert']);
    // Each is dated by its send: the digest item's own sentAt, the instant item's alert row's.
    expect(page.entries.map((e) => [e.mode, e.sentAt])).toEqual([
      ['daily', ago(5)],
      ['feed', ago(20)],
      ['weekly', ago(25)],
      ['instant', ago(29)],
    ]);
    expect(page.next).toBeNull();
  });

  it('keeps to the last 30 days by send date: a digest item found 31 days ago but sent 29 days ago is in', async () => {
    const days = (n: number) => addDays(NOW, -n);
    await putLine({ jobId: 'rss_in', createdAt: addDays(days(29), -1), sentAt: days(29) });
    await putLine({ jobId: 'rss_edge', createdAt: new Date(days(30).getTime() + MINUTE) });
    await putLine({ jobId: 'rss_out', createdAt: new Date(days(30).getTime() - MINUTE) });
    await putLine({ jobId: 'rss_old', createdAt: days(40) });
    // In the order Scout found them (the ledger's createdAt), each dated by its send.
    expect(jobIds(await readArchive(db, { uid, now: NOW }))).toEqual(['rss_edge', 'rss_in']);
  });

  it('joins each entry with its posting (title, link, employer), and says so when jobs/ no longer keeps it', async () => {
    await putPosting(db, { id: 'rss_kept', title: 'React engineer', company: 'Acme', location: 'Berlin', remote: true, now: NOW });
    await putLine({ jobId: 'rss_kept', createdAt: ago(1), fitReason: 'Product work, remote' });
    await putLine({ jobId: 'rss_pruned', createdAt: ago(2) });
    const [kept, pruned] = (await readArchive(db, { uid, now: NOW })).entries;
    expect(kept).toMatchObject({
      posting: { title: 'React engineer', url: 'https://jobs.example.com/rss_kept', employer: 'Acme · Berlin · remote', description: null },
      reasons: ['“react” in the title'],
      fit: 80,
      fitReason: 'Product work, remote',
    });
    expect(pruned).toMatchObject({ jobId: 'rss_pruned', posting: null, reasons: ['“react” in the title'] });
  });
});

describe('readArchive: pages', () => {
  it('pages of 20, newest first, every entry exactly once, ties on one claim time ordered by id', async () => {
    // 45 items: most of a run's claims share its clock, so 15 share each of three times.
    const at = [ago(10), ago(20), ago(30)];
    for (let i = 0; i < 45; i++) await putLine({ jobId: `rss_${String(i).padStart(2, '0')}`, createdAt: at[Math.floor(i / 15)] });

    const seen: string[] = [];
    const sizes: number[] = [];
    let before = null;
    do {
      const page: ArchivePage = await readArchive(db, { uid, now: NOW, before });
      seen.push(...jobIds(page));
      sizes.push(page.entries.length);
      before = page.next;
    } while (before);

    expect(sizes).toEqual([ARCHIVE_PAGE_SIZE, ARCHIVE_PAGE_SIZE, 5]);
    const expected = Array.from({ length: 45 }, (_, i) => `rss_${String(i).padStart(2, '0')}`).sort((a, b) => {
      const group = (id: string) => Math.floor(Number(id.slice(4)) / 15);
      return group(a) - group(b) || b.localeCompare(a);
    });
    expect(seen).toEqual(expected);
  });

  it('a first page reads one page of deliveries and postings, not the whole month', async () => {
    for (let i = 0; i < 60; i++) await putLine({ jobId: `rss_${i}`, createdAt: ago(i + 1) });
    counter.reset();
    const page = await readArchive(db, { uid, now: NOW });
    expect(page.entries).toHaveLength(ARCHIVE_PAGE_SIZE);
    // 21 deliveries (one more tells whether there is a next page) and 20 postings (missing ones count).
    expect(counter.snapshot()).toMatchObject({ reads: ARCHIVE_PAGE_SIZE + 1 + ARCHIVE_PAGE_SIZE, roundTrips: 2 });
  });
});

describe('readArchive: search', () => {
  beforeEach(async () => {
    await putPosting(db, { id: 'rss_a', title: 'Senior React engineer', company: 'Acme', location: 'Berlin', now: NOW });
    await putPosting(db, { id: 'rss_b', title: 'Svelte developer', company: 'Globex', now: NOW });
    await putPosting(db, { id: 'rss_c', title: 'Data engineer', company: 'Initech', now: NOW });
    await putLine({ jobId: 'rss_a', createdAt: ago(1) });
    await putLine({ jobId: 'rss_b', createdAt: ago(2), reasons: ['“svelte” in the title'] });
    await putLine({ jobId: 'rss_c', createdAt: ago(3), reasons: ['“python” in the skills'], fitReason: 'Pipelines in React Native apps' });
  });

  const search = (q: string) => readArchive(db, { uid, now: NOW, terms: searchTermsOf(q) }).then(jobIds);

  it('finds words in the title, the employer, the reasons and the verdict, case-insensitive, every word', async () => {
    expect(await search('react')).toEqual(['rss_a', 'rss_c']);
    expect(await search('GLOBEX')).toEqual(['rss_b']);
    expect(await search('berlin')).toEqual(['rss_a']);
    expect(await search('python')).toEqual(['rss_c']);
    expect(await search('react berlin')).toEqual(['rss_a']);
    expect(await search('react cobol')).toEqual([]);
  });

  it(`reads at most ${ARCHIVE_SCAN_LIMIT} deliveries per request: past them the page is cut short, and its next page goes on from there`, async () => {
    // 330 newer items that do not match, then the three above (older): the first request cannot reach them.
    const writes = db.batch();
    for (let i = 0; i < 330; i++) {
      const line = { jobId: `rss_noise_${i}`, createdAt: new Date(NOW.getTime() - i * 100) };
      writes.set(deliveryRef(db, uid, line.jobId), {
        uid,
        jobId: line.jobId,
        mode: 'daily',
        status: 'sent',
        score: 50,
        reasons: ['“go” in the title'],
        emailKey: null,
        digestDate: null,
        reason: null,
        runId: 'run-test',
        createdAt: line.createdAt,
        sentAt: line.createdAt,
        expireAt: addDays(line.createdAt, 30),
      } satisfies Delivery);
    }
    await writes.commit();

    counter.reset();
    const first = await readArchive(db, { uid, now: NOW, terms: searchTermsOf('react') });
    const firstReads = counter.snapshot().reads;
    expect(first).toMatchObject({ entries: [], scanned: ARCHIVE_SCAN_LIMIT, cutShort: true });
    expect(first.next).not.toBeNull();
    // The bound, measured: 300 deliveries and the postings of those 300 (all missing here, each still a read).
    expect(firstReads).toBeLessThanOrEqual(2 * ARCHIVE_SCAN_LIMIT);

    const second = await readArchive(db, { uid, now: NOW, terms: searchTermsOf('react'), before: first.next });
    expect(jobIds(second)).toEqual(['rss_a', 'rss_c']);
    expect(second).toMatchObject({ next: null, cutShort: false });
    expect(second.scanned).toBeLessThanOrEqual(ARCHIVE_SCAN_LIMIT);
  });
});
