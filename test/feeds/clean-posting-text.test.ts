import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAshbyJobs } from '../../lib/feeds/adapters/ashby-adapter';
import { parseGreenhouseJobs } from '../../lib/feeds/adapters/greenhouse-adapter';
import { parseLeverPostings } from '../../lib/feeds/adapters/lever-adapter';
import { remoteOkAdapter } from '../../lib/feeds/adapters/remoteok-adapter';
import { cardTitle, cleanPostingText, cleanPostingTitle } from '../../lib/feeds/clean-posting-text';
import { readFeed } from '../../lib/feeds/parse-feed';
import type { Posting } from '../../lib/feeds/posting';
import { feedSiteName } from '../../lib/feeds/source-name';
import { postingExcerpt } from '../../lib/mail/posting-excerpt';
import { readSampleFeed } from '../../scripts/sample-feed/server';
import { json, readOnce } from './adapters/read-adapter';

/**
 * Real captured answers (test/feeds/adapters/corpus/, each file's provenance in its kind's
 * PROVENANCE.md): their titles and texts as the cards show them. Files read here:
 * - feed/job-hunter-nodesk.xml, feed/louisinayinde-jobs-nodesk.xml (NoDesk: "Role at Company" titles),
 * - feed/remote-jobs-collector-wwr.xml, feed/wwr-stats-collector-remote-jobs.xml,
 *   feed/wwr-stats-collector-remote-programming-jobs.xml (We Work Remotely: "Headquarters: … URL: …"
 *   before each text, "To apply: https://weworkremotely.com/…" after it),
 * - feed/job-hunter-teamtailor-spidersilk.xml, feed/louisinayinde-jobs-euremotejobs.xml (titles
 *   with a spaced dash that is part of the role),
 * - remoteok/ergon-remoteok-sample.json (LinkedIn's "Posted 8:36:42 PM." and "See this and similar
 *   jobs on LinkedIn." relayed through Remote OK),
 * - every file of corpus/feed, greenhouse, lever and ashby: nothing else of them is cut.
 * Upwork's job feed format ("Budget: … Posted On: … Category: … Skills: … Country: … click to
 * apply") is in no real capture of the corpus (its Upwork answers are the website's JSON); it is
 * read from Scout's bundled sample feed (scripts/sample-feed/sample-feed.xml), written in that format.
 */

const corpus = new URL('./adapters/corpus/', import.meta.url);
const readCorpus = (path: string) => readFileSync(new URL(path, corpus), 'utf8');
const filesOf = (kind: string, ext: string) =>
  readdirSync(new URL(`${kind}/`, corpus))
    .filter((name) => name.endsWith(ext))
    .sort();

/** A corpus feed through the feed path, with its address (its self link, else its home link) and its items' titles as sent. */
function corpusFeed(file: string) {
  const raw = readCorpus(`feed/${file}`);
  const address = /<(?:atom:)?link[^>]*rel="self"[^>]*href="([^"]+)"/.exec(raw)?.[1] ?? /<link>([^<]+)<\/link>/.exec(raw)![1];
  const feed = readFeed(raw, { source: 'corpus', baseUrl: address });
  const sentTitles = [...raw.matchAll(/<item>[\s\S]*?<title>([^<]*)<\/title>/g)].map((m) => m[1]);
  return { ...feed, address, sentTitles, siteName: feedSiteName(feed.title, address) };
}

describe('cleanPostingTitle', () => {
  it('drops the employer around a NoDesk title when it is the posting’s own company, as sent and as stored', () => {
    const nodesk = corpusFeed('louisinayinde-jobs-nodesk.xml');
    expect(nodesk.sentTitles[0]).toBe('Staff Systems Engineer, IT at GitLab');
    expect(cleanPostingTitle(nodesk.sentTitles[0], { sources: ['NoDesk'], company: 'GitLab' })).toBe('Staff Systems Engineer, IT');
    // This capture has two items, too few to call the feed's convention: the stored title keeps "at …".
    const short = corpusFeed('job-hunter-nodesk.xml');
    const [beekman] = short.postings;
    expect(beekman.title).toBe('Beekman Social - Account Manager at Beekman Social');
    expect(beekman.company).toBeUndefined();
    expect(cardTitle(beekman)).toBe(beekman.title);
    // Once the employer is known, both of its mentions go.
    expect(cleanPostingTitle(beekman.title, { company: 'Beekman Social' })).toBe('Account Manager');
  });

  it('drops a We Work Remotely title’s "Company: " when it is the company, and nothing when it is not', () => {
    const wwr = corpusFeed('remote-jobs-collector-wwr.xml');
    expect(wwr.sentTitles[0]).toBe('Mathmo: Maths Coach');
    expect(cleanPostingTitle('Mathmo: Maths Coach', { sources: ['We Work Remotely'], company: 'Mathmo' })).toBe('Maths Coach');
    expect(cleanPostingTitle('Mathmo: Maths Coach', { sources: ['We Work Remotely'], company: 'Qase' })).toBe('Mathmo: Maths Coach');
  });

  it('drops a trailing site name that names where the job was listed: the feed’s, or Upwork’s anywhere', async () => {
    // Titles as the sample feed sends them; stored postings of before the feed path learnt its site name still hold them.
    const sample = await readSampleFeed();
    const sent = [...sample.matchAll(/<item>\s*<title>([^<]*)<\/title>/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    expect(sent.length).toBeGreaterThan(20);
    for (const title of sent) {
      expect(title).toMatch(/ - Gigboard$/);
      expect(cleanPostingTitle(title, { sources: ['Gigboard'] })).toBe(title.replace(/ - Gigboard$/, ''));
      // A card whose source is named otherwise keeps it: only the source's own name is a site suffix.
      expect(cleanPostingTitle(title, { sources: ['Remote OK'] })).toBe(title);
    }
    expect(cleanPostingTitle('React Native developer for fitness app - Upwork', { sources: ['Gigboard'] })).toBe(
      'React Native developer for fitness app',
    );
    // "at Company - Board": the board's name, then the employer's.
    expect(cleanPostingTitle('Designer at Acme - Gigboard', { sources: ['Gigboard'], company: 'Acme' })).toBe('Designer');
  });

  it('keeps every part of a real title that only looks like a wrapper', () => {
    const spidersilk = corpusFeed('job-hunter-teamtailor-spidersilk.xml');
    expect(spidersilk.siteName).toBe('spiderSilk');
    expect(cleanPostingTitle('Forward Deployed Engineer - Silkrunner', { sources: [spidersilk.siteName!], company: 'spiderSilk' })).toBe(
      'Forward Deployed Engineer - Silkrunner',
    );
    const eu = corpusFeed('louisinayinde-jobs-euremotejobs.xml');
    const stuttgart = eu.postings.find((p) => p.title.includes('Stuttgart'))!;
    expect(cardTitle({ ...stuttgart, sightings: [{ label: eu.siteName! }] })).toBe(stuttgart.title);
    for (const title of ['Software Engineeer Lead - QA - US Remote', 'Fullstack Developer (React, React Native, Node.js) - Remote']) {
      expect(cleanPostingTitle(title, { sources: ['We Work Remotely'] })).toBe(title);
    }
    // A platform hosting employers' own boards never signs a title: "- Greenhouse" is a job's.
    expect(cleanPostingTitle('Grower - Greenhouse', { sources: ['Greenhouse · acme'] })).toBe('Grower - Greenhouse');
    // Nothing left would be no title: it stays whole.
    expect(cleanPostingTitle('Acme', { company: 'Acme' })).toBe('Acme');
  });

  it('changes no title of the corpus as Scout stores it: the feed path has already read them', () => {
    const titles: { card: string; stored: string }[] = [];
    for (const file of filesOf('feed', '.xml')) {
      const feed = corpusFeed(file);
      for (const p of feed.postings) titles.push({ card: cardTitle({ ...p, sightings: [{ label: feed.siteName! }] }), stored: p.title });
    }
    const boards: [string, (raw: string) => Posting[]][] = [
      ['greenhouse', (raw) => parseGreenhouseJobs('gh', raw, { company: null })],
      ['lever', (raw) => parseLeverPostings('lv', raw, { company: null })],
      ['ashby', (raw) => parseAshbyJobs('ab', raw, { company: null })],
    ];
    for (const [kind, parse] of boards)
      for (const file of filesOf(kind, '.json'))
        for (const p of parse(readCorpus(`${kind}/${file}`)))
          titles.push({ card: cardTitle({ ...p, sightings: [{ label: `${kind} · board` }] }), stored: p.title });
    expect(titles.length).toBeGreaterThan(700);
    expect(titles.filter((t) => t.card !== t.stored)).toEqual([]);
  });
});

describe('cleanPostingText', () => {
  it('drops We Work Remotely’s "Headquarters: … URL: …" opening and its "To apply: <link>" from every one of its texts, and keeps the rest', () => {
    let texts = 0;
    for (const file of [
      'remote-jobs-collector-wwr.xml',
      'wwr-stats-collector-remote-jobs.xml',
      'wwr-stats-collector-remote-programming-jobs.xml',
    ]) {
      for (const { description } of corpusFeed(file).postings) {
        const clean = cleanPostingText(description);
        expect(clean).not.toMatch(/To apply: https:\/\/weworkremotely\.com/);
        if (/^Headquarters:.{0,150}? URL: \S+ /.test(description)) expect(clean).not.toMatch(/^Headquarters:/);
        // What is left is the text between: its own words, not a word lost.
        expect(description).toContain(clean);
        expect(description.length - clean.length).toBeLessThan(300);
        texts++;
      }
    }
    expect(texts).toBe(129);
    const [mathmo] = corpusFeed('remote-jobs-collector-wwr.xml').postings;
    expect(cleanPostingText(mathmo.description)).toMatch(/^We're looking for incredible mathematicians/);
  });

  it('drops LinkedIn’s "Posted <time>." and "See this and similar jobs on LinkedIn." relayed by Remote OK', async () => {
    const text = readCorpus('remoteok/ergon-remoteok-sample.json');
    const answer = await readOnce(remoteOkAdapter, { params: {}, served: { '/api': json(text) }, now: new Date('2026-11-30T06:00:00Z') });
    if (answer.status !== 'ok') throw new Error('the capture was not read');
    const relayed = answer.postings.filter((p) => p.description.startsWith('Posted '));
    expect(relayed).toHaveLength(2);
    expect(relayed.map((p) => cleanPostingText(p.description))).toEqual([
      'Executive Assistant to the FoundersLocation: Fully Remote (East Coast Preferred)Travel: Occasional',
      'Hey there! We’re myVA Rocks! We connect busy pros and business owners with amazing Virtual',
    ]);
  });

  it('drops the Upwork feed format’s labels and "click to apply", whose facts the posting carries in its own fields', async () => {
    const postings = readFeed(await readSampleFeed(), { source: 'sample', baseUrl: 'http://127.0.0.1:3030/sample.xml' }).postings;
    for (const posting of postings) {
      expect(posting.description).toMatch(/Posted On: .* Category: .* Country: .* click to apply$/);
      const clean = cleanPostingText(posting.description);
      expect(clean).not.toMatch(/Posted On:|Category:|Skills:|Country:|Hourly Range:|click to apply/);
      expect(clean).not.toMatch(/\bBudget: [$€]/);
      expect(clean.length).toBeGreaterThan(60);
      // The facts stay with the posting: the country as the client's place, the skills as tags.
      expect(posting.location).toMatch(/^Client in \S/);
      expect(posting.skills.length).toBeGreaterThanOrEqual(3);
    }
    const [nextjs] = postings;
    expect(nextjs.budget).toMatchObject({ amount: 2_500, currency: 'USD', kind: 'fixed' });
    expect(nextjs.location).toBe('Client in United States');
    expect(cleanPostingText(nextjs.description)).toMatch(/Please share 2–3 dashboards you have shipped\.$/);
    // The excerpt a card shows is cut from the clean text.
    expect(postingExcerpt(nextjs)).not.toMatch(/Posted On|click to apply/);
  });

  it('keeps a text whose labels are its own words: one "Skills:" line, or a long value after a label', () => {
    const oneLabel = 'We build dashboards. Skills: React, TypeScript';
    expect(cleanPostingText(oneLabel)).toBe(oneLabel);
    const prose = `Posted On: our blog. Category: ${'a long explanation of the role in plain words '.repeat(6).trim()}`;
    expect(cleanPostingText(prose)).toBe(prose);
  });

  it('cuts nothing of any other real text of the corpus', () => {
    const texts: string[] = [];
    for (const file of filesOf('feed', '.xml').filter((f) => !f.includes('wwr')))
      texts.push(...corpusFeed(file).postings.map((p) => p.description));
    for (const file of filesOf('greenhouse', '.json'))
      texts.push(...parseGreenhouseJobs('gh', readCorpus(`greenhouse/${file}`), { company: null }).map((p) => p.description));
    for (const file of filesOf('lever', '.json'))
      texts.push(...parseLeverPostings('lv', readCorpus(`lever/${file}`), { company: null }).map((p) => p.description));
    for (const file of filesOf('ashby', '.json'))
      texts.push(...parseAshbyJobs('ab', readCorpus(`ashby/${file}`), { company: null }).map((p) => p.description));
    expect(texts.length).toBeGreaterThan(500);
    expect(texts.filter((text) => cleanPostingText(text) !== text)).toEqual([]);
  });
});
