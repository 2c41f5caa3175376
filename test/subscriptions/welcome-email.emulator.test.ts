import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InjectedCrash, type Failpoint } from '../../lib/runtime/failpoints';
import { confirmSubscription } from '../../lib/subscriptions/confirm';
import { handleConfirmRequest } from '../../lib/subscriptions/handle-confirm-request';
import { WELCOME_MAX_ITEMS, welcomeSettingsOf } from '../../lib/subscriptions/welcome';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { outboxCollection } from '../../lib/outbox/outbox-row';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { deliveriesOf, putDelivery } from '../support/deliveries';
import { createHarness, type Harness } from '../support/harness';
import { callConfirm, linkIn, minutesAfter, postSignup } from './signup-fixture';

/**
 * The first email at once: a confirmation sends the week's best matches as a welcome, written with
 * the activation (its row and one `sending` delivery per posting), so those postings are never sent
 * again and one signup gives at most one welcome, whatever clicks, crashes and runs follow.
 */
const T0 = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => minutesAfter(T0, minutes);
const ADDRESS = 'ada@example.com';
const UID = subscriberId(ADDRESS);
const CONFIRM_SUBJECT = 'Confirm your Scout subscription';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const crashBeforeStoring: Failpoint = async (name) => {
  if (name === 'after-postings-stored') throw new InjectedCrash(name);
};

/** The week's postings stored and still `pending`: a run stored them and died before matching, so the next run matches them. */
async function storePendingPostings(keyword: string, n: number) {
  h.serveFeed(postingsAbout(keyword, n, { at: T0 }));
  await expect(h.run({ now: T0.toISOString(), lockName: 'seed', failpoint: crashBeforeStoring })).rejects.toThrow(InjectedCrash);
  const pending = await h.db.collection('jobs').where('matchState', '==', 'pending').get();
  expect(pending.size).toBe(n);
}

async function signUpAndGetLink(fields: Record<string, string>, now = at(1)) {
  expect((await postSignup(h, { email: ADDRESS, ...fields }, { now })).status).toBe(202);
  const confirm = (await h.inbox(ADDRESS)).find((m) => m.subject === CONFIRM_SUBJECT);
  return linkIn(confirm?.text, h.config.APP_URL, '/confirm');
}

const welcomes = async () => (await h.inbox(ADDRESS)).filter((m) => m.subject.startsWith('Welcome'));
const notConfirmations = async () => (await h.inbox(ADDRESS)).filter((m) => m.subject !== CONFIRM_SUBJECT);
const welcomeRows = async () => (await outboxCollection(h.db).where('kind', '==', 'welcome').get()).docs;

describe('a confirmation sends the best matches of the last 7 days at once', () => {
  it('one welcome email is in the inbox before any cron run, with those postings, its subject starting "Welcome"', async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'instant' });

    const page = await callConfirm(h, 'POST', link, at(2));
    expect(page.status).toBe(200);
    expect(page.html).toContain('We&#x27;ve sent you 3 matches from the last 7 days');

    const [welcome, ...more] = await welcomes();
    expect(more).toHaveLength(0);
    expect(welcome.subject).toMatch(/^Welcome to Scout: 3 matches, top: react engineer wanted #\d/);
    for (let i = 1; i <= 3; i++) expect(welcome.text).toContain(`react engineer wanted #${i} (batch)`);
    expect(welcome.text).toContain('Your next email comes as soon as a new posting fits you');
    expect(welcome.text).toContain('/unsubscribe?token=');
    expect(welcome.headers?.['List-Unsubscribe']).toMatch(/^<http:\/\/localhost:3000\/unsubscribe\?token=/);

    const deliveries = await deliveriesOf(h.db, UID);
    expect(deliveries).toHaveLength(3);
    const [row] = await welcomeRows();
    expect(row.get('status')).toBe('sent');
    for (const d of deliveries) expect(d).toMatchObject({ status: 'sending', emailKey: row.id });
    expect(row.id).toMatch(new RegExp(`^welcome_${UID}_`));
  });

  it('carries at most WELCOME_MAX_ITEMS postings, the best first', async () => {
    await storePendingPostings('react', WELCOME_MAX_ITEMS + 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'instant' });
    await callConfirm(h, 'POST', link, at(2));
    const [welcome] = await welcomes();
    // Within 60 characters: the best title is cut at a word.
    expect(welcome.subject).toMatch(new RegExp(`^Welcome to Scout: ${WELCOME_MAX_ITEMS} matches, top: react engineer wanted`));
    expect(await deliveriesOf(h.db, UID)).toHaveLength(WELCOME_MAX_ITEMS);
  });

  it('leaves out postings the subscriber already has a delivery for (a re-signup inside the retention)', async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'instant' });
    const jobs = (await h.db.collection('jobs').get()).docs.map((d) => d.id).sort();
    await putDelivery(h.db, { uid: UID, jobId: jobs[0], status: 'sent', mode: 'instant', now: at(-60 * 24) });

    await callConfirm(h, 'POST', link, at(2));
    const [welcome] = await welcomes();
    expect(welcome.subject).toMatch(/^Welcome to Scout: 2 matches, top: react engineer wanted #\d/);
    const [row] = await welcomeRows();
    expect([...row.get('deliveryIds')].sort()).toEqual(jobs.slice(1).map((id) => `${UID}_${id}`));
  });
});

describe('no match, no welcome', () => {
  it('nothing of the week fits: no welcome email, and the confirmed page says when the first email comes', async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'cobol', mode: 'instant' });
    const page = await callConfirm(h, 'POST', link, at(2));
    expect(page.status).toBe(200);
    expect(page.html).toContain('Nothing of the last 7 days fits yet.');
    expect(page.html).toContain('Your first email comes as soon as a new posting fits you');
    expect(await notConfirmations()).toHaveLength(0);
    expect(await welcomeRows()).toHaveLength(0);
  });

  it('a digest subscriber is told the day and hour of their first digest, in their zone', async () => {
    const link = await signUpAndGetLink({ keywords: 'cobol', mode: 'daily', timezone: 'Europe/Berlin', digestHour: '9' });
    const page = await callConfirm(h, 'POST', link, at(2));
    expect(page.html).toContain('Your first digest comes on Monday 30 November at 09:00 Europe/Berlin');
  });

  it('a feed subscriber, who asked for no email, gets none', async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'feed' });
    const page = await callConfirm(h, 'POST', link, at(2));
    expect(page.html).toContain('Scout sends you no email');
    expect(await notConfirmations()).toHaveLength(0);
  });
});

describe('exactly one welcome per signup', () => {
  it('8 concurrent POSTs of the link: one activation, one welcome email, one welcome row', async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'instant' });
    const pages = await Promise.all(Array.from({ length: 8 }, () => callConfirm(h, 'POST', link, at(2))));
    expect(pages.filter((p) => p.status === 200)).toHaveLength(1);
    expect(await welcomes()).toHaveLength(1);
    expect(await welcomeRows()).toHaveLength(1);
    expect(await deliveriesOf(h.db, UID)).toHaveLength(3);
  });

  it('run twice: the cron runs after it match the same postings, still pending, and send none of them again', async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'instant' });
    await callConfirm(h, 'POST', link, at(2));
    const before = await deliveriesOf(h.db, UID);

    for (const minutes of [15, 30]) expect((await h.cron({ now: at(minutes).toISOString() })).status).toBe(200);

    expect((await notConfirmations()).map((m) => m.subject)).toEqual([expect.stringMatching(/^Welcome to Scout: 3 matches, top: /)]);
    expect(await deliveriesOf(h.db, UID)).toEqual(before);
    const stillPending = await h.db.collection('jobs').where('matchState', '==', 'pending').get();
    expect(stillPending.size).toBe(0);
  });

  it("a digest subscriber's welcome postings are not queued again for their digest", async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'daily' });
    await callConfirm(h, 'POST', link, at(2));
    expect(await welcomes()).toHaveLength(1);

    // One new posting after the confirmation: the digest carries it, and only it.
    h.serveFeed([...postingsAbout('react', 3, { at: T0 }), ...postingsAbout('react', 1, { at: at(30), prefix: 'later' })]);
    await h.cron({ now: at(45).toISOString() });
    await h.cron({ now: at(125).toISOString() });

    const digests = (await notConfirmations()).filter((m) => !m.subject.startsWith('Welcome'));
    expect(digests).toHaveLength(1);
    expect(digests[0].text).toContain('react engineer wanted #1 (later)');
    expect(digests[0].text).not.toContain('(batch)');
    const queuedOrDigested = (await deliveriesOf(h.db, UID)).filter((d) => d.emailKey?.startsWith('digest_'));
    expect(queuedOrDigested).toHaveLength(1);
  });
});

describe('a welcome not sent in the request is sent by the next cron run, once', () => {
  it('the process dies between the commit and the send: the row is pending, and the next run sends it once', async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'instant' });
    const token = new URL(link).searchParams.get('token');
    // The activation and the welcome commit; nothing sends (the request died right after).
    const confirmed = await confirmSubscription(h.db, {
      token,
      secret: h.config.LINK_SECRET,
      now: at(2),
      runId: 'confirm-died',
      welcome: welcomeSettingsOf(h.config),
    });
    expect(confirmed).toMatchObject({ ok: true, welcome: { postings: 3 } });
    const [row] = await welcomeRows();
    expect(row.get('status')).toBe('pending');
    expect(await welcomes()).toHaveLength(0);

    await h.cron({ now: at(15).toISOString() });
    await h.cron({ now: at(30).toISOString() });
    expect((await notConfirmations()).map((m) => m.subject)).toEqual([expect.stringMatching(/^Welcome to Scout: 3 matches, top: /)]);
    expect((await welcomeRows())[0].get('status')).toBe('sent');
  });

  it('a crash after the lease, before the send: the next run sends it once, under its key', async () => {
    await storePendingPostings('react', 3);
    const link = await signUpAndGetLink({ keywords: 'react', mode: 'instant' });
    const crashBeforeSend: Failpoint = async (name) => {
      if (name === 'before-send') throw new InjectedCrash(name);
    };
    const request = new Request(link, { method: 'POST', body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    // The request's clocks are the test's, so the lease it leaves ends before the next run.
    const page = await handleConfirmRequest(request, {
      ...h.deps,
      failpoint: crashBeforeSend,
      wallClock: () => at(2).getTime(),
      now: at(2),
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Your welcome email, with 3 matches from the last 7 days, is on its way.');
    expect(await welcomes()).toHaveLength(0);

    await h.cron({ now: at(15).toISOString() });
    await h.cron({ now: at(30).toISOString() });
    expect((await notConfirmations()).map((m) => m.subject)).toEqual([expect.stringMatching(/^Welcome to Scout: 3 matches, top: /)]);
  });
});
