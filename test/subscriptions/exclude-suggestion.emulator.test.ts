import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordNotAFit } from '../../lib/feedback/record-not-a-fit';
import { RECENT_MATCHES } from '../../lib/feedback/read-exclude-suggestion';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { createHarness, type Harness } from '../support/harness';
import { putDelivery } from '../support/deliveries';
import { putPosting } from '../support/postings';

/**
 * The preferences page's exclude suggestion: "Exclude 'wordpress'? It would have
 * removed N of your last M matches". The figure is checked against a recount made here, over the
 * emulator's data, without Scout's code: the subscriber's deliveries read raw and sorted here, their
 * postings read one by one, and the word looked for with a regular expression of the test's own.
 */

const T0 = new Date('2026-11-01T06:00:00Z');
const NOW = new Date('2026-11-30T06:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
let h: Harness;
let uid: string;

beforeEach(async () => {
  h = await createHarness();
  uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], excludes: ['drupal'], mode: 'daily' });
});
afterEach(async () => h.close());

const link = () => preferencesUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW });

async function respond(request: Request) {
  const response = await handlePreferencesRequest(request, { db: h.db, config: h.config, now: NOW });
  // React writes ' as &#x27;: read the page as a person does.
  return { status: response.status, html: (await response.text()).replaceAll('&#x27;', "'") };
}
const get = () => respond(new Request(link()));
const post = (fields: Record<string, string>) =>
  respond(
    new Request(link(), {
      method: 'POST',
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
  );

const SUGGESTION = /Exclude '([^']+)'\? It would have removed (\d+) of your last (\d+) matches\./;

/**
 * 62 deliveries, one a minute, newest last: WordPress shows up in the title, the skills or only the
 * description of some (few enough of these kept matches that excluding it stays under the ceiling on
 * kept matches removed); "wordpressy" and "word press" must not count; a few postings have expired.
 * The oldest 12 (past the 50 latest) are all WordPress, so a figure that ignored the cap would show.
 */
async function seedMatches() {
  const texts = (i: number): { title: string; description: string; skills: string[] } => {
    if (i < 12) return { title: `WordPress blog ${i}`, description: 'Old.', skills: [] };
    switch (i % 20) {
      case 0:
        return { title: `WordPress shop ${i}`, description: 'React front.', skills: [] };
      case 1:
        return { title: `Landing page ${i}`, description: 'React.', skills: ['WordPress', 'CSS'] };
      case 2:
        return { title: `Agency site ${i}`, description: 'React, then a wordpress export.', skills: [] };
      case 3:
        return { title: `Wordpressy thing ${i}`, description: 'React and word press.', skills: [] };
      default:
        return { title: `React dashboard ${i}`, description: 'Charts.', skills: ['React'] };
    }
  };
  for (let i = 0; i < 62; i++) {
    const id = `sample_m${String(i).padStart(2, '0')}`;
    await putPosting(h.db, { id, ...texts(i), now: at(i) });
    await putDelivery(h.db, { uid, jobId: id, status: i % 5 === 0 ? 'skipped' : 'sent', now: at(i) });
  }
  // Expired from jobs/: their deliveries cannot be measured and are left out of M.
  for (const id of ['sample_m60', 'sample_m55', 'sample_m40']) await h.db.collection('jobs').doc(id).delete();
  // Someone else's deliveries never count.
  await putDelivery(h.db, { uid: 'someone-else', jobId: 'sample_m61', status: 'sent', now: at(100) });
}

/** The three postings marked "not a fit": WordPress in common, nothing else. */
async function markNotAFit(count = 3) {
  const marked = [
    { id: 'sample_nf0', title: 'WordPress theme for a bakery', description: 'Customise colours.' },
    { id: 'sample_nf1', title: 'Fix my WordPress plugin', description: 'PHP errors after update.' },
    { id: 'sample_nf2', title: 'Speed up a WordPress site', description: 'Caching, images.' },
  ].slice(0, count);
  for (const [i, posting] of marked.entries()) {
    await putPosting(h.db, { ...posting, now: at(i) });
    expect(await recordNotAFit(h.db, { uid, jobId: posting.id, now: at(200 + i), retentionDays: 30 })).toMatchObject({ ok: true });
  }
}

/** The figure, recounted without Scout's code. */
async function recount(term: string) {
  const raw = (await h.db.collection('deliveries').where('uid', '==', uid).get()).docs.map((d) => d.data());
  const latest = raw.sort((a, b) => b.createdAt.toMillis() - a.createdAt.toMillis()).slice(0, 50);
  const stored = [];
  for (const delivery of latest) {
    const job = await h.db.collection('jobs').doc(delivery.jobId).get();
    if (job.exists) stored.push(job.data()!);
  }
  const word = new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])${term}(?![\\p{L}\\p{M}\\p{N}])`, 'iu');
  const removed = stored.filter((p) => word.test(p.title) || word.test((p.skills as string[]).join(' · ')) || word.test(p.description));
  return { removed: removed.length, of: stored.length };
}

describe('the exclude suggestion on the preferences page', () => {
  it('proposes the word the "not a fit" postings share, and its figure matches a recount over the stored postings', async () => {
    await seedMatches();
    await markNotAFit();
    const before = await h.dump();

    const page = await get();
    expect(page.status).toBe(200);
    const [, term, removed, of] = SUGGESTION.exec(page.html) ?? [];
    expect(term).toBe('wordpress');
    const expected = await recount('wordpress');
    expect({ removed: Number(removed), of: Number(of) }).toEqual(expected);
    // The recount is not trivial: the cap and the expired postings both shaped it.
    expect(RECENT_MATCHES).toBe(50);
    expect(expected.of).toBe(47);
    expect(expected.removed).toBeGreaterThan(0);
    expect(expected.removed).toBeLessThan(expected.of);
    // One button, posting the term back to the same link.
    expect(page.html).toContain('<input type="hidden" name="action" value="exclude"/>');
    expect(page.html).toContain('<input type="hidden" name="term" value="wordpress"/>');
    expect(page.html).toContain(">Exclude 'wordpress'</button>");
    // Showing it changed nothing.
    expect(await h.dump()).toEqual(before);
  });

  it('one click adds the exclude through the preferences update: profileVersion goes up, and the suggestion is gone', async () => {
    await seedMatches();
    await markNotAFit();
    const page = await post({ action: 'exclude', term: 'wordpress' });
    expect(page.status).toBe(200);
    expect(page.html).toContain('Added “wordpress” to your excludes.');
    expect(page.html).not.toMatch(SUGGESTION);
    const user = (await h.db.collection('users').doc(uid).get()).data()!;
    expect(user.excludes).toEqual(['drupal', 'wordpress']);
    expect(user.profileVersion).toBe(2);

    // A second click (another tab) changes nothing more.
    await post({ action: 'exclude', term: 'WordPress' });
    const again = (await h.db.collection('users').doc(uid).get()).data()!;
    expect(again.excludes).toEqual(['drupal', 'wordpress']);
    expect(again.profileVersion).toBe(2);
  });

  it('for a written query, one click adds -term to the query itself, and the query still says what it said', async () => {
    await h.db
      .collection('users')
      .doc(uid)
      .update({ query: 'title:react remote:yes', keywords: ['react'], excludes: [] });
    await seedMatches();
    await markNotAFit();
    const page = await post({ action: 'exclude', term: 'wordpress' });
    expect(page.status).toBe(200);
    const user = (await h.db.collection('users').doc(uid).get()).data()!;
    expect(user).toMatchObject({ query: 'title:react remote:yes -wordpress', keywords: ['react'], excludes: ['wordpress'] });
    await post({ action: 'exclude', term: 'wordpress' });
    expect((await h.db.collection('users').doc(uid).get()).data()!.query).toBe('title:react remote:yes -wordpress');
  });

  it('with a written query at its limit, the exclude is refused with why, and nothing changes', async () => {
    const full = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' OR ');
    await h.db
      .collection('users')
      .doc(uid)
      .update({ query: full, keywords: ['w0'], excludes: [] });
    await seedMatches();
    await markNotAFit();
    const before = (await h.db.collection('users').doc(uid).get()).data()!;
    const page = await post({ action: 'exclude', term: 'wordpress' });
    expect(page.status).toBe(400);
    expect(page.html).toContain('leaving out “wordpress” would make your query too long');
    expect((await h.db.collection('users').doc(uid).get()).data()).toEqual(before);
  });

  it('refuses a term no exclude may be, and changes nothing', async () => {
    await seedMatches();
    await markNotAFit();
    const before = await h.dump();
    const page = await post({ action: 'exclude', term: '<script>' });
    expect(page.status).toBe(400);
    expect(page.html).toContain('Nothing was saved');
    expect(await h.dump()).toEqual(before);
  });

  it('proposes nothing from a single "not a fit" posting, nor without feedback', async () => {
    await seedMatches();
    expect((await get()).html).not.toMatch(SUGGESTION);
    await markNotAFit(1);
    expect((await get()).html).not.toMatch(SUGGESTION);
  });

  it('proposes nothing that would remove every recent match', async () => {
    // Every match mentions WordPress.
    for (let i = 0; i < 5; i++) {
      await putPosting(h.db, { id: `sample_w${i}`, title: `React and WordPress ${i}`, now: at(i) });
      await putDelivery(h.db, { uid, jobId: `sample_w${i}`, status: 'sent', now: at(i) });
    }
    await markNotAFit();
    expect((await get()).html).not.toMatch(SUGGESTION);
  });
});
