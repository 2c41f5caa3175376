import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isRemoteOnlyBoard, readFeedJobFields } from '../../lib/feeds/feed-job-fields';
import { siteNamesOf, titlesEndWithTheCompany, titlesNameTheCompany, unwrapJobTitle } from '../../lib/feeds/job-title';
import { parseFeed } from '../../lib/feeds/parse-feed';

const realFeed = (file: string) => readFileSync(new URL(`./adapters/corpus/feed/${file}`, import.meta.url), 'utf8');
const WWR = 'https://weworkremotely.com/remote-jobs.rss';

const rss = (items: string[]) =>
  `<?xml version="1.0"?><rss version="2.0" xmlns:job="https://example.com/job"><channel><title>Jobs</title><link>https://jobs.example.com/</link>${items
    .map((item, i) => `<item><guid>g${i}</guid><link>https://jobs.example.com/${i}</link>${item}</item>`)
    .join('')}</channel></rss>`;

describe('feeds: what a job board says beyond RSS reaches the posting', () => {
  it('a real We Work Remotely feed gives each posting its employer from the title, its region as the place, remote, and the role alone as the title', () => {
    const [mathmo, qase] = parseFeed(realFeed('remote-jobs-collector-wwr.xml'), { source: 'wwr', baseUrl: WWR });
    expect(mathmo).toMatchObject({ title: 'Maths Coach', company: 'Mathmo', location: 'Anywhere in the World', remote: true });
    expect(mathmo.skills).toContain('Contract');
    expect(qase).toMatchObject({ title: 'Developer Advocate', company: 'Qase' });
    // The employer's seat ("<state>Delaware</state>") is not where the job is done.
    expect(qase.location).toBe('Anywhere in the World');
  });

  it('a real NoDesk feed, which titles every item "Role at Company", gives each posting its employer and the role alone', () => {
    const postings = parseFeed(realFeed('louisinayinde-jobs-nodesk.xml'), { source: 'nodesk', baseUrl: 'https://nodesk.co/remote-jobs/' });
    expect(postings.map(({ title, company }) => ({ title, company }))).toEqual([
      { title: 'Staff Systems Engineer, IT', company: 'GitLab' },
      { title: 'Senior Backend Engineer (TS/Node)', company: 'Graphy' },
      { title: 'Senior Account Director', company: 'General Assembly' },
    ]);
    // NoDesk is no board Scout knows as remote-only, and its items say nothing of it.
    expect(postings.every((posting) => !('remote' in posting))).toBe(true);
  });

  it("a real WP Job Manager feed (Jobspresso) gives the employer and place of its job_listing: elements, and its guid's id as WordPress means it", () => {
    const [hopper, , onePassword] = parseFeed(realFeed('louisinayinde-jobs-jobspresso.xml'), {
      source: 'jobspresso',
      baseUrl: 'https://jobspresso.co/?feed=job_feed',
    });
    expect(hopper).toMatchObject({
      title: 'Principal Product Manager, Conversational AI',
      company: 'Hopper',
      location: 'Various US States',
    });
    expect(hopper.guid).toBe('https://jobspresso.co/?post_type=job_listing&p=163413');
    expect(onePassword).toMatchObject({ company: '1Password', location: 'United States, Canada' });
    expect(onePassword.budget).toMatchObject({ amount: 124_000, maxAmount: 180_000, currency: 'USD', kind: 'yearly' });
  });

  it('a real Teamtailor feed gives each posting the city and country of its first tt:location, and its remoteStatus as the remote flag', () => {
    const postings = parseFeed(realFeed('job-hunter-teamtailor-spidersilk.xml'), {
      source: 'teamtailor',
      baseUrl: 'https://spidersilk.teamtailor.com/jobs.rss',
    });
    expect(postings.map(({ location, remote }) => ({ location, remote }))).toEqual([
      { location: 'Dubai, United Arab Emirates', remote: false },
      { location: 'Dubai, United Arab Emirates', remote: false },
    ]);
    // Inside tt:locations only the first location's parts are read: not its address, nor a second place's country.
    expect(
      readFeedJobFields(
        '<rss><channel><item><tt:locations><tt:location><tt:address>Somewhere 1</tt:address><tt:city>Lisbon</tt:city></tt:location><tt:location><tt:city>Porto</tt:city><tt:country>Portugal</tt:country></tt:location></tt:locations><remoteStatus>fully</remoteStatus></item></channel></rss>',
      ),
    ).toEqual([{ company: null, place: 'Lisbon', remote: true, skills: [], type: null }]);
  });

  it('reads the job elements of each item by local name, whatever their prefix, and leaves nested content alone', () => {
    const fields = readFeedJobFields(
      rss([
        '<title>Backend engineer</title><job:company>Acme &amp; Co</job:company><job:location><![CDATA[Berlin, Germany]]></job:location><job:remote>false</job:remote><description>&lt;region&gt;not this&lt;/region&gt;</description>',
        '<title>Designer</title><media:content url="x"/><content:encoded><![CDATA[<p><company>Not the employer</company></p>]]></content:encoded><city>Austin</city><state>TX</state><country>US</country><skills>Figma, Sketch</skills>',
      ]),
    );
    expect(fields).toEqual([
      { company: 'Acme & Co', place: 'Berlin, Germany', remote: false, skills: [], type: null },
      { company: null, place: 'Austin, TX, US', remote: null, skills: ['Figma', 'Sketch'], type: null },
    ]);
  });

  it('a hostile answer costs its length: tags never closed, a 5 MB item, a CDATA never ended', () => {
    const started = performance.now();
    expect(readFeedJobFields(`<rss><channel>${'<item><region>'.repeat(200_000)}`)).toEqual([]);
    expect(readFeedJobFields(`<rss><channel><item><region>${'x'.repeat(5_000_000)}</region></item></channel></rss>`)).toHaveLength(1);
    expect(readFeedJobFields(`<rss><channel><item><region><![CDATA[${'<'.repeat(100_000)}`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("a posting takes the feed's company, place and remote flag, and a place that is itself remote work makes it remote", () => {
    const [berlin, anywhere] = parseFeed(
      rss([
        '<title>Backend engineer at Acme</title><job:company>Acme</job:company><job:location>Berlin</job:location><job:remote>no</job:remote>',
        '<title>Support lead</title><job:location>Remote (EU)</job:location>',
      ]),
      { source: 'jobs', baseUrl: 'https://jobs.example.com/feed' },
    );
    expect(berlin).toMatchObject({ title: 'Backend engineer', company: 'Acme', location: 'Berlin', remote: false });
    expect(anywhere).toMatchObject({ title: 'Support lead', location: 'Remote (EU)', remote: true });
  });

  it('a feed without job elements gives postings as before: no employer, place or remote flag guessed', () => {
    const [posting] = parseFeed(rss(['<title>Update: new roles this week</title>']), {
      source: 'blog',
      baseUrl: 'https://blog.example.com/feed',
    });
    expect(posting.title).toBe('Update: new roles this week');
    expect(posting).not.toHaveProperty('company');
    expect(posting).not.toHaveProperty('location');
    expect(posting).not.toHaveProperty('remote');
  });

  it('an item id does not move when its title is read differently: it is keyed on the title as sent', () => {
    const feed = rss([
      '<title>Mathmo: Maths Coach</title>',
      '<title>Qase: Developer Advocate</title>',
      '<title>Acme: Designer</title>',
    ]).replace(/<guid>g\d<\/guid><link>[^<]*<\/link>/g, '');
    const postings = parseFeed(feed, { source: 'wwr', baseUrl: WWR });
    expect(postings.map((posting) => posting.title)).toEqual(['Maths Coach', 'Developer Advocate', 'Designer']);
    const asBlog = parseFeed(feed, { source: 'wwr', baseUrl: 'https://blog.example.com/feed' });
    expect(postings.map((posting) => posting.id)).toEqual(asBlog.map((posting) => posting.id));
  });
});

describe('job titles: wrappers that repeat the company or the site', () => {
  it('"Company: Role" gives the company and the role when the feed titles all its items that way, or when the prefix is the company it names', () => {
    expect(unwrapJobTitle('Mathmo: Maths Coach', { company: null, companyInTitle: true })).toEqual({
      title: 'Maths Coach',
      company: 'Mathmo',
    });
    expect(unwrapJobTitle('Mathmo: Maths Coach', { company: 'Mathmo Ltd', companyInTitle: false })).toEqual({
      title: 'Mathmo: Maths Coach',
      company: 'Mathmo Ltd',
    });
    expect(unwrapJobTitle('Mathmo: Maths Coach', { company: 'mathmo', companyInTitle: false })).toEqual({
      title: 'Maths Coach',
      company: 'mathmo',
    });
    expect(unwrapJobTitle('Update: new roles', { company: null, companyInTitle: false })).toEqual({
      title: 'Update: new roles',
      company: null,
    });
  });

  it('drops the " - Upwork" suffix and a suffix naming the company', () => {
    expect(unwrapJobTitle('Shopify theme fixes - Upwork', { company: null, companyInTitle: false }).title).toBe('Shopify theme fixes');
    expect(unwrapJobTitle('Data engineer at Acme', { company: 'Acme', companyInTitle: false }).title).toBe('Data engineer');
    expect(unwrapJobTitle('Data engineer - Acme', { company: 'Acme', companyInTitle: false }).title).toBe('Data engineer');
    expect(unwrapJobTitle('Data engineer - Remote', { company: 'Acme', companyInTitle: false }).title).toBe('Data engineer - Remote');
  });

  it("drops a suffix that is the feed's own name, from its title or its host, and keeps any other", () => {
    const gigboard = siteNamesOf('All jobs | Gigboard', 'https://gigboard.example.com/jobs.rss');
    expect(
      unwrapJobTitle('Django REST API for a property platform - Gigboard', { company: null, companyInTitle: false, siteNames: gigboard })
        .title,
    ).toBe('Django REST API for a property platform');
    const wwr = siteNamesOf('We Work Remotely: Remote jobs in design, programming, marketing and more', WWR);
    expect(unwrapJobTitle('G2i Inc.: Fullstack Developer - Remote', { company: null, companyInTitle: true, siteNames: wwr })).toEqual({
      title: 'Fullstack Developer - Remote',
      company: 'G2i Inc.',
    });
  });

  it('the bundled sample feed loses its " - Gigboard" suffix and gains no company: only some of its titles have a colon', () => {
    const sample = readFileSync(new URL('../../scripts/sample-feed/sample-feed.xml', import.meta.url), 'utf8');
    const postings = parseFeed(sample, { source: 'sample', baseUrl: 'http://127.0.0.1:8080/jobs.rss' });
    expect(postings.length).toBeGreaterThan(3);
    for (const posting of postings) {
      expect(posting.title).not.toMatch(/Gigboard/);
      expect(posting).not.toHaveProperty('company');
    }
    expect(postings.map((posting) => posting.title)).toContain('Data engineer: Airflow pipelines from Postgres to BigQuery');
  });

  it('decides "Company: Role" over the whole feed: nine titles in ten, at least three', () => {
    expect(titlesNameTheCompany(['A: x', 'B: y', 'C: z'])).toBe(true);
    expect(titlesNameTheCompany(['A: x', 'B: y'])).toBe(false);
    expect(titlesNameTheCompany(['A: x', 'B: y', 'C: z', 'no colon here'])).toBe(false);
  });

  it('decides "Role at Company" over the whole feed as well, and reads the employer after the last "at"', () => {
    expect(titlesEndWithTheCompany(['Engineer at A', 'Designer at B', 'Writer at C'])).toBe(true);
    expect(titlesEndWithTheCompany(['Engineer at A', 'Designer at B'])).toBe(false);
    expect(titlesEndWithTheCompany(['Engineer at A', 'Designer at B', 'Writer at C', 'Analyst, remote'])).toBe(false);
    expect(unwrapJobTitle('Engineer at Large at Acme', { company: null, companyInTitle: false, companyAtEnd: true })).toEqual({
      title: 'Engineer at Large',
      company: 'Acme',
    });
    // One title of that shape in a feed that does not title its items so is a role, not an employer.
    expect(unwrapJobTitle('Engineer at heart', { company: null, companyInTitle: false })).toEqual({
      title: 'Engineer at heart',
      company: null,
    });
  });

  it('knows the remote-only boards by their host', () => {
    expect(isRemoteOnlyBoard(WWR)).toBe(true);
    expect(isRemoteOnlyBoard('https://www.weworkremotely.com/categories/remote-programming-jobs.rss')).toBe(true);
    expect(isRemoteOnlyBoard('https://notweworkremotely.com/feed')).toBe(false);
    expect(isRemoteOnlyBoard('not a url')).toBe(false);
  });
});
