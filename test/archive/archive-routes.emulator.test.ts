import { createHmac } from 'node:crypto';
import { parseAtomFeed } from 'feedsmith';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleArchiveRequest } from '../../lib/archive/handle-archive-request';
import { handleFeedRequest } from '../../lib/archive/handle-feed-request';
import { FEED_ENTRIES } from '../../lib/archive/private-feed';
import { deliveryRef, type Delivery } from '../../lib/ledger/delivery';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { archiveUrl, feedUrl, notAFitUrl, preferencesUrl, signLinkToken, verifyLinkToken } from '../../lib/subscribers/link-token';
import { addDays } from '../../lib/store/timestamps';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { instrumentFirestore } from '../../scripts/bench/firestore-counter';
import { createHarness, type Harness } from '../support/harness';
import { SCRIPT_TITLE } from '../support/hostile-sources';
import { putPosting } from '../support/postings';

const NOW = new Date('2026-11-30T06:00:00Z');
const ADA = 'ada.lovelace@example.com';
let h: Harness;
let uid: string;

beforeEach(async () => {
  h = await createHarness();
  uid = await h.subscribe({ email: ADA, keywords: ['react'] });
});
afterEach(async () => h.close());

const deps = (now = NOW) => ({ db: h.db, config: h.config, now });
const link = (who = uid, issuedAt = NOW) => ({ appUrl: h.config.APP_URL, uid: who, secret: h.config.LINK_SECRET, issuedAt });
const archiveOf = (who = uid) => archiveUrl(link(who));
const feedOf = (version = 0, who = uid) => feedUrl({ ...link(who), version });

const getArchive = (url: string, init?: RequestInit) => handleArchiveRequest(new Request(url, init), deps());
const getFeed = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  handleFeedRequest(new Request(url, { method, headers }), deps());

/** A digest item marked sent, `minutesAgo` before NOW. */
async function putSent(jobId: string, minutesAgo: number, extra: Partial<Delivery> = {}) {
  const at = new Date(NOW.getTime() - minutesAgo * 60_000);
  await deliveryRef(h.db, uid, jobId).set({
    uid,
    jobId,
    mode: 'daily',
    status: 'sent',
    score: 70,
    reasons: ['“react” in the title'],
    emailKey: null,
    digestDate: null,
    reason: null,
    runId: 'run-test',
    createdAt: at,
    sentAt: at,
    expireAt: addDays(at, 30),
    ...extra,
  });
}

/** The only markup an entry's HTML holds: Scout's paragraphs and its "Not a fit" link. */
const onlyScoutTags = (tags: string[]) => tags.every((tag) => tag === 'p' || tag === 'a');

const HOSTILE_REASON = '“react” in <img src=x onerror=alert(1)> & the title';

async function putHostilePosting() {
  await putPosting(h.db, {
    id: 'rss_hostile',
    title: SCRIPT_TITLE,
    company: '<b>Evil & Co</b>',
    description: '<script>document.cookie</script> ]]> Work on React.',
    now: NOW,
  });
  await putSent('rss_hostile', 5, { reasons: [HOSTILE_REASON], fit: 90, fitReason: '</p><script>alert(2)</script>' });
}

function expectPrivate(response: Response) {
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

describe('from the email to the archive', () => {
  it("a delivered alert's footer links to the archive (HTML and text), and the link shows that alert's postings", async () => {
    h.serveFeed(postingsAbout('react', 3, { at: NOW }));
    await h.run({ now: NOW.toISOString() });
    const [alert] = await h.inbox(ADA);
    expect(alert.subject).toMatch(/^3 new: /);
    const inText = /Your archive: (\S+)/.exec(alert.text!)?.[1];
    expect(inText).toMatch(/^http:\/\/localhost:3000\/archive\?token=/);
    expect(alert.html).toContain(`href="${inText}"`);
    expect(alert.html).toContain('Your archive');

    // The archive is opened on the app's own clock, a little after the send.
    const response = await handleArchiveRequest(new Request(inText!), deps(new Date(NOW.getTime() + 3_600_000)));
    expect(response.status).toBe(200);
    const html = await response.text();
    for (const n of [1, 2, 3]) expect(html).toContain(`react engineer wanted #${n} (batch)`);
    expect(html).toContain('instant alert');
    expect(html).toContain('Why: ');
    expect(html).toContain('a***@example.com');
  });
});

describe('GET /archive', () => {
  it('is never stored, never leaks its URL, and escapes every posting text', async () => {
    await putHostilePosting();
    const response = await getArchive(archiveOf());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectPrivate(response);
    const html = await response.text();
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>Evil');
    expect(html).toContain('Senior &lt;script&gt;alert(1)&lt;/script&gt; Engineer');
    expect(html).toContain('&lt;b&gt;Evil &amp; Co&lt;/b&gt;');
    expect(html).toContain('“react” in &lt;img src=x onerror=alert(1)&gt; &amp; the title');
    expect(html).toContain('AI fit 90/100: &lt;/p&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    // The posting's link leaves no Referer either.
    expect(html).toContain('href="https://jobs.example.com/rss_hostile" rel="noopener noreferrer"');
  });

  it('each card shows the pay, when it was posted, who and where, and the email’s "Not a fit" link; its dates in the subscriber’s zone', async () => {
    await h.db.collection('users').doc(uid).update({ timezone: 'Europe/Berlin' });
    await putPosting(h.db, {
      id: 'rss_paid',
      title: 'React engineer - Gigboard',
      company: 'Acme',
      location: 'Berlin, Germany',
      remote: true,
      budget: { amount: 4_000, currency: 'USD', kind: 'fixed' },
      // 00:30 in Berlin on the 30th: the day it was there.
      publishedAt: new Date('2026-11-29T23:30:00Z'),
      now: NOW,
    });
    await h.db
      .collection('jobs')
      .doc('rss_paid')
      .update({ sightings: [{ source: 'rss', label: 'Gigboard', url: null, seenAt: NOW }] });
    await putSent('rss_paid', 5);
    await putSent('rss_gone', 10);

    const html = await (await getArchive(archiveOf())).text();
    // The title without the site's name the feed put after it.
    expect(html).toContain('rel="noopener noreferrer">React engineer</a></h2>');
    expect(html).toContain('<p class="archive-facts">Acme · Berlin, Germany · remote · $4,000 fixed · posted 30 Nov 2026</p>');
    // Sent at 05:55 UTC: 06:55 in Berlin, said so.
    expect(html).toContain('Sent <time dateTime="2026-11-30T05:55:00.000Z">30 Nov 2026, 06:55 CET</time>');
    const notAFit = /<p class="archive-not-a-fit"><a href="([^"]+)"/.exec(html)?.[1].replace(/&amp;/g, '&');
    expect(notAFit).toBe(notAFitUrl({ ...link(), jobId: 'rss_paid' }));
    const check = verifyLinkToken(new URL(notAFit!).searchParams.get('token'), {
      secret: h.config.LINK_SECRET,
      purpose: 'not-a-fit',
      now: NOW,
    });
    expect(check).toMatchObject({ ok: true, claims: { uid, job: 'rss_paid' } });
    // A posting jobs/ no longer keeps has nothing to give feedback on.
    expect(html.match(/class="archive-not-a-fit"/g)).toHaveLength(1);
    expect(html).toContain('A posting Scout no longer keeps');
  });

  it('searches and pages through links that keep the token and the search', async () => {
    for (let i = 0; i < 25; i++) await putSent(`rss_go_${String(i).padStart(2, '0')}`, i + 1, { reasons: ['“go” in the title'] });
    await putSent('rss_react', 30);
    const first = await (await getArchive(archiveOf())).text();
    expect(first.match(/class="archive-entry"/g)).toHaveLength(20);
    const older = /href="(\/archive\?token=[^"]+before=[^"]+)" rel="next"/.exec(first)?.[1].replace(/&amp;/g, '&');
    expect(older).toBeDefined();
    const second = await (await getArchive(`http://localhost:3000${older}`)).text();
    expect(second.match(/class="archive-entry"/g)).toHaveLength(6);
    expect(second).not.toContain('rel="next"');

    const search = new URL(archiveOf());
    search.searchParams.set('q', '  REACT ');
    const found = await (await getArchive(search.toString())).text();
    expect(found.match(/class="archive-entry"/g)).toHaveLength(1);
    expect(found).toContain('Postings that match “REACT”');
    expect(found).toContain('value="REACT"');
  });

  it('a search or a page link it cannot read is a 400 that leads back to the archive', async () => {
    for (const [name, value] of [
      ['q', 'x'.repeat(101)],
      ['before', 'not-a-cursor'],
      ['before', '123.a/b'],
    ]) {
      const url = new URL(archiveOf());
      url.searchParams.set(name, value);
      const response = await getArchive(url.toString());
      expect(response.status, `${name}=${value}`).toBe(400);
      expectPrivate(response);
      expect(await response.text()).toContain('Back to your archive');
    }
  });

  it('answers only GET (and HEAD)', async () => {
    const response = await getArchive(archiveOf(), { method: 'POST', body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

/** Every way a link can fail to open the archive or the feed. */
async function deadLinks(purpose: 'archive' | 'feed'): Promise<Record<string, string>> {
  const base = purpose === 'archive' ? `${h.config.APP_URL}/archive` : `${h.config.APP_URL}/feed`;
  const good = purpose === 'archive' ? archiveOf() : feedOf();
  const [body, signature] = new URL(good).searchParams.get('token')!.split('.');
  // The body carries the subscriber sealed; signLinkToken takes the id and seals it again.
  const { sub: _sealed, ...claims } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  const signed = (extra: Record<string, unknown>) => `${base}?token=${signLinkToken({ uid, ...claims, ...extra }, h.config.LINK_SECRET)}`;
  // A link from before the seal: the subscriber's id (their address in base64url) in clear, signed as it was then.
  const clearBody = Buffer.from(JSON.stringify({ uid, purpose, exp: claims.exp, ...(purpose === 'feed' ? { version: 0 } : {}) })).toString(
    'base64url',
  );
  const clear = `${clearBody}.${createHmac('sha256', h.config.LINK_SECRET).update(clearBody).digest('base64url')}`;
  const gone = await h.subscribe({ email: 'gone@example.com', keywords: ['react'] });
  await h.db.collection('users').doc(gone).update({ status: 'unsubscribed' });
  const pending = await h.subscribe({ email: 'pending@example.com', keywords: ['react'] });
  await h.db.collection('users').doc(pending).update({ status: 'pending' });
  return {
    'no token': base,
    tampered: `${base}?token=${body}.${signature.slice(0, -2)}xx`,
    'a preferences link': `${base}?token=${new URL(preferencesUrl(link())).searchParams.get('token')}`,
    'the other kind of link': `${base}?token=${new URL(purpose === 'archive' ? feedOf() : archiveOf()).searchParams.get('token')}`,
    expired: signed({ exp: Math.floor(NOW.getTime() / 1000) - 1 }),
    'nobody behind it': signed({ uid: 'bm9ib2R5QGV4YW1wbGUuY29t' }),
    unsubscribed: signed({ uid: gone }),
    pending: signed({ uid: pending }),
    ...(purpose === 'feed' ? { 'revoked (an older version)': signed({ version: 7 }) } : {}),
    'another link version (links revoked, or an ended subscription)': signed({ linkVersion: 3 }),
    'from before sealed links (the address in clear)': `${base}?token=${clear}`,
  };
}

describe('a link that opens nothing', () => {
  it('/archive: the same 404 for every reason, naming nobody', async () => {
    await putHostilePosting();
    const bodies = new Set<string>();
    for (const [why, url] of Object.entries(await deadLinks('archive'))) {
      const response = await getArchive(url);
      expect(response.status, why).toBe(404);
      expectPrivate(response);
      const html = await response.text();
      expect(html, why).not.toMatch(/ada|example\.com|Senior/i);
      bodies.add(html);
    }
    expect(bodies.size).toBe(1);
  });

  it('/feed: the same bare 404 for every reason, a revoked URL included', async () => {
    await putHostilePosting();
    // Version 7 is "revoked" only once the subscriber is past it: bump them to 8.
    await h.db.collection('users').doc(uid).update({ feedTokenVersion: 8 });
    const bodies = new Set<string>();
    for (const [why, url] of Object.entries(await deadLinks('feed'))) {
      const response = await getFeed(url);
      expect(response.status, why).toBe(404);
      expectPrivate(response);
      expect(response.headers.get('etag'), why).toBeNull();
      bodies.add(await response.text());
    }
    expect([...bodies]).toEqual(['Not found\n']);
  });
});

describe('GET /feed', () => {
  it('is Atom that feedsmith reads: the archive newest first, each entry HTML whose posting texts are escaped, stable ids', async () => {
    await putHostilePosting();
    await putPosting(h.db, { id: 'rss_plain', title: 'React engineer', company: 'Acme', description: 'x'.repeat(600), now: NOW });
    await putSent('rss_plain', 1);
    await putSent('rss_pruned', 10);

    const response = await getFeed(feedOf());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expectPrivate(response);
    const xml = await response.text();
    expect(xml).not.toContain('<script>');
    const feed = parseAtomFeed(xml);
    expect(feed.links).toContainEqual({ href: feedOf(), rel: 'self', type: 'application/atom+xml' });
    expect(feed.updated).toBe(new Date(NOW.getTime() - 60_000).toISOString());
    expect(feed.authors).toEqual([{ name: 'Scout' }]);
    expect(feed.entries!.map((e) => e.title!.value)).toEqual([
      'React engineer',
      'Senior <script>alert(1)</script> Engineer[31m\u202e',
      'A posting Scout no longer keeps',
    ]);
    const [plain, hostile, pruned] = feed.entries!;
    expect(plain.links).toEqual([{ href: 'https://jobs.example.com/rss_plain', rel: 'alternate', type: 'text/html' }]);
    // HTML Scout wrote (RFC 4287 type="html"): who and when, why, the excerpt, and the email's "Not a fit" link.
    expect(plain.content!.type).toBe('html');
    const notAFit = notAFitUrl({ ...link(), jobId: 'rss_plain' });
    expect(plain.content!.value).toBe(
      `<p>Acme · posted 30 Nov 2026</p>\n<p>Why: “react” in the title</p>\n<p>${'x'.repeat(500)}…</p>\n<p><a href="${notAFit}">Not a fit</a></p>`,
    );
    // Every text from outside is escaped as HTML inside the content: a reader shows it, never runs it.
    expect(hostile.content!.value).toBe(
      [
        '<p>&lt;b&gt;Evil &amp; Co&lt;/b&gt; · posted 30 Nov 2026</p>',
        `<p>Why: “react” in &lt;img src=x onerror=alert(1)&gt; &amp; the title</p>`,
        '<p>AI fit 90/100: &lt;/p&gt;&lt;script&gt;alert(2)&lt;/script&gt;</p>',
        '<p>&lt;script&gt;document.cookie&lt;/script&gt; ]]&gt; Work on React.</p>',
        `<p><a href="${notAFitUrl({ ...link(), jobId: 'rss_hostile' })}">Not a fit</a></p>`,
      ].join('\n'),
    );
    for (const entry of feed.entries!)
      expect([...entry.content!.value!.matchAll(/<\/?([a-z]+)/g)].map((m) => m[1])).toSatisfy(onlyScoutTags);
    expect(pruned.links).toBeUndefined();
    // Nothing left to give feedback on: no "Not a fit".
    expect(pruned.content!.value).toBe('<p>Why: “react” in the title</p>\n<p>Scout no longer keeps this posting.</p>');
    // Nothing in an id says whose feed it is, and a second poll gives the same ids.
    expect(xml).not.toContain(uid);
    const again = parseAtomFeed(await (await getFeed(feedOf())).text());
    expect(again.entries!.map((e) => e.id)).toEqual(feed.entries!.map((e) => e.id));
    expect(new Set(feed.entries!.map((e) => e.id)).size).toBe(3);
  });

  it(`carries the newest ${FEED_ENTRIES} entries`, async () => {
    for (let i = 0; i < FEED_ENTRIES + 5; i++) await putSent(`rss_${i}`, i + 1);
    const feed = parseAtomFeed(await (await getFeed(feedOf())).text());
    expect(feed.entries).toHaveLength(FEED_ENTRIES);
  });

  it('answers a reader whose copy is current with a bodiless 304, by ETag or by date, and a changed feed with 200', async () => {
    await putSent('rss_a', 10);
    const first = await getFeed(feedOf());
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(lastModified).toBe(new Date(NOW.getTime() - 10 * 60_000).toUTCString());

    const conditions: Record<string, string>[] = [{ 'if-none-match': etag }, { 'if-modified-since': lastModified }];
    for (const headers of conditions) {
      const again = await getFeed(feedOf(), headers);
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expectPrivate(again);
    }

    await putSent('rss_b', 1);
    const changed = await getFeed(feedOf(), { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(parseAtomFeed(await changed.text()).entries).toHaveLength(2);
    expect((await getFeed(feedOf(), { 'if-modified-since': lastModified })).status).toBe(200);
  });

  it('a 304 is decided from the subscriber and the ledger alone: no posting is read', async () => {
    for (let i = 0; i < 30; i++) {
      await putPosting(h.db, { id: `rss_${i}`, title: `React ${i}`, now: NOW });
      await putSent(`rss_${i}`, i + 1);
    }
    const etag = (await getFeed(feedOf())).headers.get('etag')!;
    const counter = instrumentFirestore();
    try {
      expect((await getFeed(feedOf(), { 'if-none-match': etag })).status).toBe(304);
      // 1 subscriber + 30 deliveries (the query asks for 51; it returns what there is).
      expect(counter.snapshot()).toMatchObject({ reads: 31, roundTrips: 2 });
      counter.reset();
      expect((await getFeed(feedOf())).status).toBe(200);
      expect(counter.snapshot()).toMatchObject({ reads: 61, roundTrips: 3 });
    } finally {
      counter.restore();
    }
  });

  it('HEAD gives the headers without the body; any other method is 405', async () => {
    const head = await getFeed(feedOf(), {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBeTruthy();
    expect(await head.text()).toBe('');
    expect((await getFeed(feedOf(), {}, 'POST')).status).toBe(405);
  });
});

describe('revoking the feed URL from the preferences page', () => {
  const preferencesPage = async (init?: RequestInit) => {
    const response = await handlePreferencesRequest(new Request(preferencesUrl(link()), init), deps());
    return { status: response.status, html: await response.text() };
  };
  const feedUrlOn = (html: string) => /id="feed-url"[^>]* value="([^"]+)"/.exec(html)?.[1].replace(/&amp;/g, '&');

  it('shows the archive link and the feed URL; revoking kills every old URL at once and shows a new one that works', async () => {
    await putSent('rss_a', 10);
    const page = await preferencesPage();
    expect(page.html).toContain(`href="${archiveOf().replace(/&/g, '&amp;')}"`);
    const oldUrl = feedUrlOn(page.html)!;
    expect(oldUrl).toBe(feedOf(0));
    expect((await getFeed(oldUrl)).status).toBe(200);

    const revoked = await preferencesPage({
      method: 'POST',
      body: new URLSearchParams({ action: 'revoke-feed' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.html).toContain('Your old feed URLs no longer work');
    const newUrl = feedUrlOn(revoked.html)!;
    expect(newUrl).toBe(feedOf(1));
    expect((await h.db.collection('users').doc(uid).get()).get('feedTokenVersion')).toBe(1);

    expect((await getFeed(oldUrl)).status).toBe(404);
    expect((await getFeed(newUrl)).status).toBe(200);
    // The archive link is not the feed's: it keeps working.
    expect((await getArchive(archiveOf())).status).toBe(200);
  });

  it('two presses at once are two bumps, never a lost one', async () => {
    const press = () =>
      preferencesPage({
        method: 'POST',
        body: 'action=revoke-feed',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const pages = await Promise.all([press(), press()]);
    expect(pages.map((p) => p.status)).toEqual([200, 200]);
    expect((await h.db.collection('users').doc(uid).get()).get('feedTokenVersion')).toBe(2);
  });
});
