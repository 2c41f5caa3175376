import { afterEach, describe, expect, it } from 'vitest';
import type { SubscriberInput } from '../../lib/subscribers/subscriber';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';

/**
 * Run twice, and N runs at once, around a subscriber's own local digest hour. The slots
 * are written out as UTC instants by hand (not computed with the code under test), so a wrong
 * offset, a wrong DST rule or a wrong period key fails here. Each case: items queued half an hour
 * before the slot (the same local period); two runs a minute before it send nothing; N concurrent runs at the slot (with
 * new postings arriving in them) and two more right after send exactly one digest, keyed by the
 * local period; the same again at the next slot. Every posting lands in exactly one digest.
 */
type Case = {
  name: string;
  subscriber: Omit<SubscriberInput, 'email' | 'keywords'>;
  /** The slot, and the instants after it that must not send a second digest for its period. */
  slot: string;
  sameSlotAgain?: string;
  period: string;
  nextSlot: string;
  nextPeriod: string;
};

const CASES: Case[] = [
  {
    name: 'Europe/Berlin, daily 09:00 (CET, 08:00Z)',
    subscriber: { mode: 'daily', timezone: 'Europe/Berlin', digestHour: 9 },
    slot: '2026-11-30T08:00:00Z',
    period: '2026-11-30',
    nextSlot: '2026-12-01T08:00:00Z',
    nextPeriod: '2026-12-01',
  },
  {
    name: 'Asia/Kolkata, daily 07:00 (a half-hour zone, 01:30Z)',
    subscriber: { mode: 'daily', timezone: 'Asia/Kolkata', digestHour: 7 },
    slot: '2026-11-30T01:30:00Z',
    period: '2026-11-30',
    nextSlot: '2026-12-01T01:30:00Z',
    nextPeriod: '2026-12-01',
  },
  {
    name: 'Australia/Lord_Howe, weekly on Monday 08:00 (summer time, +11: Sunday 21:00Z)',
    subscriber: { mode: 'weekly', timezone: 'Australia/Lord_Howe', digestHour: 8, weeklyDay: 'mon' },
    slot: '2026-11-29T21:00:00Z',
    period: '2026-W49',
    nextSlot: '2026-12-06T21:00:00Z',
    nextPeriod: '2026-W50',
  },
  {
    name: 'America/New_York, daily 01:00 on the night clocks go back (01:00 happens twice: 05:00Z and 06:00Z)',
    subscriber: { mode: 'daily', timezone: 'America/New_York', digestHour: 1 },
    slot: '2026-11-01T05:00:00Z',
    sameSlotAgain: '2026-11-01T06:00:00Z',
    period: '2026-11-01',
    nextSlot: '2026-11-02T06:00:00Z',
    nextPeriod: '2026-11-02',
  },
  {
    name: 'Asia/Kolkata, daily 22:00 on weekdays only (Friday 16:30Z, then Monday)',
    subscriber: { mode: 'daily', timezone: 'Asia/Kolkata', digestHour: 22, weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    slot: '2026-12-04T16:30:00Z',
    period: '2026-12-04',
    nextSlot: '2026-12-07T16:30:00Z',
    nextPeriod: '2026-12-07',
  },
];

const CONCURRENT = 6;
const EMAIL = 'zoe@example.com';

let h: Harness;
afterEach(async () => h?.close());

const shift = (iso: string, minutes: number) => new Date(new Date(iso).getTime() + minutes * 60_000).toISOString();

function postings(prefix: string, count: number, at: string): TestItem[] {
  return Array.from({ length: count }, (_, i) => ({
    guid: `${prefix}-${i}`,
    title: `Python backend ${prefix}-${i}`,
    link: `https://jobs.example.com/${prefix}/${i}`,
    description: 'A python service.',
    pubDate: new Date(new Date(at).getTime() - 60_000).toUTCString(),
  }));
}

const itemsIn = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('* '))
    .map((line) => line.slice(2).split(' ').pop()!);

/** N runs at once at `now`, each under its own lock name (the lock out of the picture: the ledger alone must hold). */
async function concurrently(now: string, tag: string) {
  const results = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => h.run({ now, lockName: `${tag}-${i}` })));
  return results.reduce((sum, r) => sum + (r.digests ?? 0), 0);
}

/** Two runs back to back through the endpoint (and its lock): returns both runs' digests claimed and emails sent. */
async function twice(now: string) {
  const first = (await h.cron({ now })).body;
  const second = (await h.cron({ now })).body;
  return { digests: first.digests + second.digests, secondSent: second.emailsSent, secondQueued: second.queued };
}

async function digestKeys() {
  return (await h.db.collection('emails').where('kind', '==', 'digest').get()).docs.map((d) => d.id).sort();
}

describe.each(CASES)('around the local digest hour: $name', (c) => {
  it(`run twice and ${CONCURRENT} concurrent runs send exactly one digest per local period`, async () => {
    h = await createHarness({ SEND_RATE_PER_SEC: '200' });
    const uid = await h.subscribe({ email: EMAIL, keywords: ['python'], ...c.subscriber });
    let feed = postings('early', 3, shift(c.slot, -30));
    h.serveFeed(feed);
    expect((await h.cron({ now: shift(c.slot, -30) })).body).toMatchObject({ queued: 3, digests: 0 });

    // A minute before the local hour: nothing, however often it is called.
    expect((await twice(shift(c.slot, -1))).digests).toBe(0);
    expect(await concurrently(shift(c.slot, -1), 'before')).toBe(0);
    expect(await h.inbox()).toHaveLength(0);

    // At the hour, N runs at once, with postings none of them has seen yet: one digest.
    feed = [...feed, ...postings('at-slot', 2, c.slot)];
    h.serveFeed(feed);
    expect(await concurrently(c.slot, 'at')).toBe(1);
    const after = await twice(shift(c.slot, 1));
    expect(after.digests).toBe(0);
    expect(after).toMatchObject({ secondSent: 0, secondQueued: 0 });
    if (c.sameSlotAgain) {
      // The repeated hour: its second occurrence is the same local date, so the same key.
      expect(await concurrently(c.sameSlotAgain, 'again')).toBe(0);
      expect((await twice(c.sameSlotAgain)).digests).toBe(0);
    }
    expect(await digestKeys()).toEqual([`digest_${uid}_${c.period}`]);
    expect(await h.inbox()).toHaveLength(1);

    // The next period: new items a few hours before its slot, then the same storm at it.
    feed = [...feed, ...postings('next', 2, shift(c.nextSlot, -120))];
    h.serveFeed(feed);
    expect((await h.cron({ now: shift(c.nextSlot, -120) })).body.digests).toBe(0);
    expect((await twice(shift(c.nextSlot, -1))).digests).toBe(0);
    expect(await concurrently(c.nextSlot, 'next')).toBe(1);
    expect((await twice(shift(c.nextSlot, 1))).digests).toBe(0);

    expect(await digestKeys()).toEqual([`digest_${uid}_${c.period}`, `digest_${uid}_${c.nextPeriod}`].sort());
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(2);
    // Every posting in exactly one digest: those the racing runs queued after the first digest was claimed wait for the next.
    const received = inbox.flatMap((m) => itemsIn(m.text!));
    expect(received.sort()).toEqual(['at-slot-0', 'at-slot-1', 'early-0', 'early-1', 'early-2', 'next-0', 'next-1']);
    expect(itemsIn(inbox.find((m) => m.text!.includes('early-0'))!.text!)).toEqual(
      expect.arrayContaining(['early-0', 'early-1', 'early-2']),
    );
    expect((await h.deliveryOutcomes()).filter((d) => d.status !== 'sent')).toEqual([]);
  });
});
