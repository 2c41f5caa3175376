import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleCronRequest } from '../../lib/cron/handle-cron-request';
import { InjectedCrash, noFailpoints, type Failpoint } from '../../lib/runtime/failpoints';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { updatePreferences } from '../../lib/subscriptions/preferences';
import { deliveriesOf } from '../support/deliveries';
import { createHarness, CRON_SECRET, type Harness } from '../support/harness';
import type { TestItem } from '../../scripts/sample-feed/rss-feed';

/**
 * The rows that can hold a queued item (lib/claims/digest-rows.ts): read by key while the
 * subscriber's schedule is the one every run since their items read, by query otherwise. Each case
 * leaves an item listed by a row that is not sent yet (its send died before the provider), then
 * changes what decides the row's key, and checks that the item still goes out once, in that row.
 */

let h: Harness;
const EMAIL = 'kim@example.com';
const uid = subscriberId(EMAIL);

beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: EMAIL, keywords: ['python'], mode: 'daily' });
});
afterEach(async () => h.close());

function postings(prefix: string, count: number, at: string): TestItem[] {
  return Array.from({ length: count }, (_, i) => ({
    guid: `${prefix}-${i}`,
    title: `Python role ${prefix}-${i}`,
    link: `https://jobs.example.com/${prefix}/${i}`,
    description: 'Python work.',
    pubDate: new Date(new Date(at).getTime() - (i + 1) * 60_000).toUTCString(),
  }));
}

/** A digest's send dies before the provider is reached: its row stays unsent, listing its items. */
const digestSendDies: Failpoint = async (name, ctx) => {
  if (name === 'before-send' && ctx?.emailKey?.startsWith('digest_')) throw new InjectedCrash(name);
};

/** The cron endpoint of the same deployment run with another DIGEST_HOUR_UTC. */
async function cronOnHour(hour: number, now: string, failpoint: Failpoint = noFailpoints) {
  const request = new Request(`http://localhost/api/cron?${new URLSearchParams({ now })}`, {
    headers: { authorization: `Bearer ${CRON_SECRET}` },
  });
  const response = await handleCronRequest(request, { ...h.deps, config: { ...h.config, DIGEST_HOUR_UTC: hour }, failpoint });
  return { status: response.status, body: await response.json() };
}

const receivedItems = async () =>
  (await h.inbox())
    .flatMap((m) => (m.text ?? '').split('\n').filter((line) => line.startsWith('* ')))
    .map((line) => line.split(' ').find((word) => /^(first|second)-\d$/.test(word)))
    .sort();

describe('an item listed by a digest row that is not sent yet', () => {
  it('is found by key while nothing changed: it goes out once, in that row, the next day', async () => {
    h.serveFeed(postings('first', 2, '2026-11-30T06:00:00Z'));
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    expect((await h.cron({ now: '2026-11-30T08:05:00Z' }, { failpoint: digestSendDies })).status).toBe(500);

    h.serveFeed([...postings('first', 2, '2026-11-30T06:00:00Z'), ...postings('second', 2, '2026-12-01T06:00:00Z')]);
    // Still unsent when the next day's flush runs (a cycle flushes before it dispatches).
    expect((await h.cron({ now: '2026-12-01T06:00:00Z' }, { failpoint: digestSendDies })).status).toBe(500);
    await h.cron({ now: '2026-12-01T08:05:00Z' });

    expect(await receivedItems()).toEqual(['first-0', 'first-1', 'second-0', 'second-1']);
    expect((await deliveriesOf(h.db, uid)).map((d) => [d.status, d.emailKey])).toEqual(
      expect.arrayContaining([
        ['sent', `digest_${uid}_2026-11-30`],
        ['sent', `digest_${uid}_2026-12-01`],
      ]),
    );
  });

  it('after a change of zone that moved the item to another key’s slot, is still found (by query): never in a second digest', async () => {
    h.serveFeed(postings('first', 2, '2026-12-02T06:00:00Z'));
    await h.cron({ now: '2026-12-02T06:00:00Z' });
    expect((await h.cron({ now: '2026-12-02T08:05:00Z' }, { failpoint: digestSendDies })).status).toBe(500);
    // Tokyo at 09:00: today (2 December there too) has its digest claimed, so the save moves the
    // listed items to 3 December 09:00 JST, 00:00 UTC: a slot whose key is not the row's.
    const saved = await updatePreferences(h.db, {
      uid,
      input: { keywords: 'python', mode: 'daily', timezone: 'Asia/Tokyo', digestHour: '9' },
      now: new Date('2026-12-02T11:00:00Z'),
      digestHourUtc: 8,
    });
    expect(saved.ok).toBe(true);

    await h.cron({ now: '2026-12-03T00:05:00Z' });

    expect(await receivedItems()).toEqual(['first-0', 'first-1']);
    const rows = (await h.db.collection('emails').where('uid', '==', uid).where('kind', '==', 'digest').get()).docs.map((d) => d.id);
    expect(rows).toEqual([`digest_${uid}_2026-12-02`]);
    for (const d of await deliveriesOf(h.db, uid)) expect(d).toMatchObject({ status: 'sent', emailKey: `digest_${uid}_2026-12-02` });
  });

  it('claimed by a run on another DIGEST_HOUR_UTC (a changed setting), is still found when the old hour is back', async () => {
    h.serveFeed(postings('first', 2, '2026-12-02T06:00:00Z'));
    await h.cron({ now: '2026-12-02T06:00:00Z' }); // queued for 2 December 08:00
    // A run on 20:00 at 08:05: its latest slot is 1 December 20:00, so it claims that day's key.
    expect((await cronOnHour(20, '2026-12-02T08:05:00Z', digestSendDies)).status).toBe(500);
    expect((await h.db.collection('emails').doc(`digest_${uid}_2026-12-01`).get()).get('deliveryIds')).toHaveLength(2);

    // Back on 08:00: the items are due at this hour's slot, whose key (2 December) is not the row's.
    await h.cron({ now: '2026-12-02T09:00:00Z' });

    expect(await receivedItems()).toEqual(['first-0', 'first-1']);
    for (const d of await deliveriesOf(h.db, uid)) expect(d).toMatchObject({ status: 'sent', emailKey: `digest_${uid}_2026-12-01` });
    expect((await h.db.collection('emails').doc(`digest_${uid}_2026-12-02`).get()).exists).toBe(false);
  });

  it('in a weekly digest, is found by key in the next week’s run', async () => {
    await h.subscribe({ email: EMAIL, keywords: ['python'], mode: 'weekly', weeklyDay: 'wed' });
    h.serveFeed(postings('first', 2, '2026-12-02T06:00:00Z'));
    await h.cron({ now: '2026-12-02T06:00:00Z' }); // Wednesday: due at 08:00 in week 49
    expect((await h.cron({ now: '2026-12-02T08:05:00Z' }, { failpoint: digestSendDies })).status).toBe(500);

    h.serveFeed([...postings('first', 2, '2026-12-02T06:00:00Z'), ...postings('second', 1, '2026-12-09T06:00:00Z')]);
    expect((await h.cron({ now: '2026-12-09T06:00:00Z' }, { failpoint: digestSendDies })).status).toBe(500);
    await h.cron({ now: '2026-12-09T08:05:00Z' });

    expect(await receivedItems()).toEqual(['first-0', 'first-1', 'second-0']);
    const keys = (await deliveriesOf(h.db, uid)).map((d) => d.emailKey).sort();
    expect(keys).toEqual([`digest_${uid}_2026-W49`, `digest_${uid}_2026-W49`, `digest_${uid}_2026-W50`]);
  });
});
