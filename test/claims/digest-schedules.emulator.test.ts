import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { subscriberId, type SubscriberInput } from '../../lib/subscribers/subscriber';
import { updatePreferences } from '../../lib/subscriptions/preferences';
import { createHarness, type Harness } from '../support/harness';
import { migrateStore, storeAtSchemaVersion } from '../support/schema';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';

/**
 * Each subscriber's own digest schedule, end to end through the cron endpoint: the digest goes out
 * at their local hour, keyed by their local period, once per period whatever the runs or the
 * schedule do, and no queued item is lost on the way (the schedules' exact rules).
 */

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const EMAIL = 'lee@example.com';
const uid = subscriberId(EMAIL);

function postings(prefix: string, count: number, at: string): TestItem[] {
  return Array.from({ length: count }, (_, i) => ({
    guid: `${prefix}-${i}`,
    title: `Python role ${prefix}-${i}`,
    link: `https://jobs.example.com/${prefix}/${i}`,
    description: 'Python work.',
    pubDate: new Date(new Date(at).getTime() - (i + 1) * 60_000).toUTCString(),
  }));
}

let served: TestItem[] = [];
/** Adds postings to the feed (the feed keeps what it served before, as a real one does). */
function publish(items: TestItem[]) {
  served = [...served, ...items];
  h.serveFeed(served);
}
beforeEach(() => {
  served = [];
});

const subscribe = (input: Partial<SubscriberInput>) => h.subscribe({ email: EMAIL, keywords: ['python'], mode: 'daily', ...input });
const digestKeys = async () =>
  (await h.db.collection('emails').where('uid', '==', uid).where('kind', '==', 'digest').get()).docs.map((d) => d.id).sort();
const queued = async () => (await h.db.collection('deliveries').where('uid', '==', uid).where('status', '==', 'queued').get()).size;
const digestsIn = async () => (await h.inbox()).filter((m) => /digest/i.test(m.text ?? ''));

describe('a daily digest at the subscriber’s local hour', () => {
  it('America/New_York at 09:00: nothing at 08:55 local, one digest keyed by the local date after 09:00, nothing on a second run', async () => {
    await subscribe({ timezone: 'America/New_York', digestHour: 9 });
    publish(postings('a', 3, '2026-12-02T12:00:00Z'));
    expect((await h.cron({ now: '2026-12-02T12:00:00Z' })).body).toMatchObject({ queued: 3, digests: 0 });
    // 08:55 in New York (EST, UTC−5): not yet, though 08:00 UTC passed hours ago.
    expect((await h.cron({ now: '2026-12-02T13:55:00Z' })).body.digests).toBe(0);
    expect((await h.cron({ now: '2026-12-02T14:05:00Z' })).body.digests).toBe(1);
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-12-02`]);
    expect((await h.cron({ now: '2026-12-02T14:06:00Z' })).body.digests).toBe(0);
    expect(await h.inbox()).toHaveLength(1);
  });

  it('Australia/Lord_Howe: the local date is the key even when UTC is still on the day before', async () => {
    await subscribe({ timezone: 'Australia/Lord_Howe', digestHour: 7 });
    // 19:00 UTC on 2 December is 06:00 on 3 December at Lord Howe (+11 in summer); 07:00 there is 20:00 UTC.
    publish(postings('a', 2, '2026-12-02T19:00:00Z'));
    expect((await h.cron({ now: '2026-12-02T19:00:00Z' })).body).toMatchObject({ queued: 2, digests: 0 });
    expect((await h.cron({ now: '2026-12-02T19:55:00Z' })).body.digests).toBe(0);
    expect((await h.cron({ now: '2026-12-02T20:05:00Z' })).body.digests).toBe(1);
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-12-03`]);
  });

  it('N concurrent runs at the local hour send one digest', async () => {
    await subscribe({ timezone: 'Europe/Berlin', digestHour: 18 });
    publish(postings('a', 4, '2026-12-02T10:00:00Z'));
    await h.cron({ now: '2026-12-02T10:00:00Z' });
    const runs = await Promise.all(Array.from({ length: 6 }, () => h.cron({ now: '2026-12-02T17:01:00Z' })));
    expect(runs.reduce((n, r) => n + ((r.body.digests as number) ?? 0), 0)).toBe(1);
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-12-02`]);
    await h.cron({ now: '2026-12-02T17:20:00Z' });
    expect(await h.inbox()).toHaveLength(1);
  });
});

describe('changing the schedule', () => {
  it('a change of zone and hour mid-day never brings a second digest for that local day, and loses no queued item', async () => {
    await subscribe({});
    publish(postings('morning', 2, '2026-12-02T07:00:00Z'));
    await h.cron({ now: '2026-12-02T07:00:00Z' });
    expect((await h.cron({ now: '2026-12-02T08:05:00Z' })).body.digests).toBe(1);
    publish(postings('later', 3, '2026-12-02T10:00:00Z'));
    await h.cron({ now: '2026-12-02T10:00:00Z' });
    expect(await queued()).toBe(3);

    // Now New York, 09:00: 14:00 UTC, still 2 December there, a day that already had its digest.
    const saved = await updatePreferences(h.db, {
      uid,
      input: { keywords: 'python', mode: 'daily', timezone: 'America/New_York', digestHour: '9' },
      now: new Date('2026-12-02T11:00:00Z'),
      digestHourUtc: 8,
    });
    expect(saved.ok).toBe(true);
    expect((await h.cron({ now: '2026-12-02T14:05:00Z' })).body.digests).toBe(0);
    expect(await h.inbox()).toHaveLength(1);
    expect(await queued()).toBe(3);

    // The next local day's digest carries them.
    expect((await h.cron({ now: '2026-12-03T14:05:00Z' })).body.digests).toBe(1);
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-12-02`, `digest_${uid}_2026-12-03`]);
    const inbox = await h.inbox();
    expect(inbox).toHaveLength(2);
    for (let i = 0; i < 3; i++) expect(inbox[1].text).toContain(`later-${i}`);
  });

  it('switching daily → weekly keeps the queued items: they go in the weekly digest', async () => {
    await subscribe({});
    publish(postings('q', 3, '2026-12-02T07:00:00Z'));
    await h.cron({ now: '2026-12-02T07:00:00Z' }); // due at 08:00 today…
    await updatePreferences(h.db, {
      uid,
      input: { keywords: 'python', mode: 'weekly', weeklyDay: 'fri' },
      now: new Date('2026-12-02T07:30:00Z'),
      digestHourUtc: 8,
    });
    // …but they moved to Friday's weekly digest.
    expect((await h.cron({ now: '2026-12-02T08:05:00Z' })).body.digests).toBe(0);
    expect(await queued()).toBe(3);
    expect((await h.cron({ now: '2026-12-04T08:05:00Z' })).body.digests).toBe(1);
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-W49`]);
    expect((await h.inbox())[0].text).toContain('the week of Monday 30 November');
  });

  it('switching weekly → daily keeps the queued items: they go in the next daily digest', async () => {
    await subscribe({ mode: 'weekly', weeklyDay: 'fri' });
    // Wednesday 2 December: due in Friday's weekly digest.
    publish(postings('q', 2, '2026-12-02T09:00:00Z'));
    expect((await h.cron({ now: '2026-12-02T09:00:00Z' })).body).toMatchObject({ queued: 2, digests: 0 });
    await updatePreferences(h.db, {
      uid,
      input: { keywords: 'python', mode: 'daily' },
      now: new Date('2026-12-02T10:01:00Z'),
      digestHourUtc: 8,
    });
    // Today's 08:00 passed unclaimed: today's daily digest is the next one not yet claimed.
    expect((await h.cron({ now: '2026-12-02T10:15:00Z' })).body.digests).toBe(1);
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-12-02`]);
    expect(await queued()).toBe(0);
  });
});

describe('weekdays and weekly digests', () => {
  it('weekdays left out carry their items to the next allowed day', async () => {
    await subscribe({ weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] });
    publish(postings('weekend', 2, '2026-12-05T09:00:00Z')); // Saturday
    await h.cron({ now: '2026-12-05T09:00:00Z' });
    expect((await h.cron({ now: '2026-12-05T09:15:00Z' })).body.digests).toBe(0);
    expect((await h.cron({ now: '2026-12-06T08:05:00Z' })).body.digests).toBe(0); // Sunday
    expect((await h.cron({ now: '2026-12-07T08:05:00Z' })).body.digests).toBe(1); // Monday
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-12-07`]);
  });

  it('a weekly digest holds the week’s top items, with the same item cap and the “N more” line', async () => {
    await subscribe({ mode: 'weekly', weeklyDay: 'sun', timezone: 'Asia/Kolkata', digestHour: 10 });
    for (const [day, count] of [
      ['2026-11-30', 8],
      ['2026-12-02', 9],
      ['2026-12-05', 8],
    ] as const) {
      publish(postings(`d${day}`, count, `${day}T06:00:00Z`));
      expect((await h.cron({ now: `${day}T06:00:00Z` })).body.digests).toBe(0);
    }
    // Sunday 6 December, 10:00 in Kolkata (+05:30) = 04:30 UTC.
    expect((await h.cron({ now: '2026-12-06T04:25:00Z' })).body.digests).toBe(0);
    expect((await h.cron({ now: '2026-12-06T04:35:00Z' })).body.digests).toBe(1);
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-W49`]);
    const [digest] = await h.inbox();
    expect(digest.text!.split('\n').filter((l) => l.startsWith('* '))).toHaveLength(20);
    expect(digest.text).toContain('5 more matched with a lower score');
    expect(await digestsIn()).toHaveLength(1);
  });
});

describe('feed only', () => {
  it('matches go to the feed as sent deliveries with no email at all', async () => {
    await subscribe({ mode: 'feed' });
    publish(postings('f', 3, '2026-12-02T09:00:00Z'));
    await h.cron({ now: '2026-12-02T09:00:00Z' });
    await h.cron({ now: '2026-12-03T09:00:00Z' });
    const deliveries = (await h.db.collection('deliveries').where('uid', '==', uid).get()).docs.map((d) => d.data());
    expect(deliveries).toHaveLength(3);
    expect(deliveries.every((d) => d.status === 'sent' && d.mode === 'feed' && d.emailKey === null && d.sentAt)).toBe(true);
    expect(await h.inbox()).toHaveLength(0);
  });
});

describe('items queued before schedules existed', () => {
  it('a queued item with a UTC digest day and no due instant waits for `scout migrate` (runs refuse till then), then is sent at that day’s DIGEST_HOUR_UTC', async () => {
    await subscribe({});
    publish(postings('old', 1, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    // Make it look as a queued item looked before, in a store at the version before the digest-due migration: no digestDueAt.
    const [doc] = (await h.db.collection('deliveries').where('uid', '==', uid).get()).docs;
    const { digestDueAt: _dropped, ...legacy } = doc.data();
    await doc.ref.set(legacy);
    await storeAtSchemaVersion(h.db, 1);

    expect((await h.cron({ now: '2026-11-30T08:05:00Z' })).status).toBe(500);
    expect(await digestKeys()).toEqual([]);
    expect((await migrateStore(h.db, { now: new Date('2026-11-30T08:06:00Z') })).applied).toContainEqual(
      expect.objectContaining({ name: 'digest-due', changed: 1 }),
    );
    expect((await h.db.collection('deliveries').doc(doc.id).get()).get('digestDueAt').toDate()).toEqual(new Date('2026-11-30T08:00:00Z'));
    expect((await h.cron({ now: '2026-11-30T08:10:00Z' })).body.digests).toBe(1);
    expect(await digestKeys()).toEqual([`digest_${uid}_2026-11-30`]);
  });
});
