import { describe, expect, it } from 'vitest';
import { FeedParseError, parseFeed } from '../../lib/feeds/parse-feed';
import { isTextCut, MAX_DESCRIPTION, postingId } from '../../lib/feeds/posting';
import { readFixture } from './read-fixture';

const options = { source: 'test', baseUrl: 'https://feeds.example.com/jobs.xml' };

function rss(items: string, channelLink = 'https://jobs.example.com/'): string {
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>${channelLink}</link><description>d</description>${items}</channel></rss>`;
}

describe('parseFeed: formats', () => {
  it('parses RSS 2.0', () => {
    const postings = parseFeed(readFixture('jobs.rss.xml'), options);
    expect(postings).toHaveLength(3);
    const [first, relative, permalink] = postings;
    expect(first).toEqual({
      id: postingId('test', 'job-1'),
      source: 'test',
      guid: 'job-1',
      title: 'Senior Next.js developer',
      url: 'https://jobs.example.com/jobs/1',
      description: 'Build a dashboard. Budget: $1,500 Skills:Next.js, React, TypeScript',
      budget: { amount: 1500, currency: 'USD', kind: 'fixed' },
      skills: ['Web Development', 'react', 'Next.js', 'TypeScript'],
      publishedAt: new Date('2026-11-30T05:30:00Z'),
    });
    expect(relative.url).toBe('https://jobs.example.com/jobs/2?ref=rss');
    expect(relative.publishedAt).toBeNull();
    expect(relative.budget).toEqual({ amount: 30, maxAmount: 60, currency: 'USD', kind: 'hourly' });
    expect(permalink.url).toBe('https://jobs.example.com/jobs/3');
    expect(permalink.guid).toBe('https://jobs.example.com/jobs/3');
  });

  it('parses Atom, honouring text vs html constructs', () => {
    const postings = parseFeed(readFixture('jobs.atom.xml'), options);
    expect(postings).toHaveLength(2);
    const [html, text] = postings;
    expect(html.id).toBe(postingId('test', 'urn:uuid:entry-1'));
    expect(html.title).toBe('Python & Django API');
    expect(html.url).toBe('https://atom.example.com/entries/1');
    expect(html.publishedAt).toEqual(new Date('2026-11-30T04:00:00Z'));
    expect(html.skills).toEqual(['Python', 'django']);
    expect(html.budget).toEqual({ amount: 800, currency: 'EUR', kind: 'fixed' });
    // type="text": angle brackets are literal text, not markup.
    expect(text.title).toBe('Compare a < b in C++');
    expect(text.description).toBe('Plain text with <tags> kept. $50/hr');
    expect(text.budget).toEqual({ amount: 50, currency: 'USD', kind: 'hourly' });
    expect(text.publishedAt).toEqual(new Date('2026-11-30T03:00:00Z'));
  });

  it('parses JSON Feed with the _scout.budget extension', () => {
    const postings = parseFeed(readFixture('jobs.json'), options);
    expect(postings).toHaveLength(2);
    const [withExtension, withBadExtension] = postings;
    expect(withExtension.title).toBe('Firebase & Firestore expert');
    expect(withExtension.budget).toEqual({ amount: 1200, currency: 'EUR', kind: 'fixed' });
    expect(withExtension.skills).toEqual(['Firebase', 'firestore', 'Security Rules']);
    expect(withExtension.publishedAt).toEqual(new Date('2026-11-30T02:00:00Z'));
    // A malformed extension is ignored in favour of the text.
    expect(withBadExtension.guid).toBe('42');
    expect(withBadExtension.budget).toEqual({ amount: 45, maxAmount: 70, currency: 'USD', kind: 'hourly' });
    expect(withBadExtension.description).toBe('Hourly Range: $45-$70. Uses a < b comparisons.');
    expect(withBadExtension.publishedAt).toEqual(new Date('2026-11-30T01:00:00Z'));
  });

  it('parses RDF (RSS 1.0)', () => {
    const [posting] = parseFeed(readFixture('jobs.rdf.xml'), options);
    expect(posting).toMatchObject({
      guid: 'https://rdf.example.com/jobs/1',
      title: 'Mobile developer (Flutter)',
      url: 'https://rdf.example.com/jobs/1',
      budget: { amount: 900, currency: 'USD', kind: 'fixed' },
      skills: ['Flutter'],
      publishedAt: new Date('2026-11-30T01:15:00Z'),
    });
  });

  it('returns no postings for a valid feed without items', () => {
    expect(parseFeed(rss(''), options)).toEqual([]);
  });
});

describe('parseFeed: malformed input', () => {
  const cases: Record<string, string> = {
    'mismatched tags': '<rss version="2.0"><channel><title>x</title><item><title>a</item></channel></rss>',
    'truncated document': rss('<item><title>a</title></item>').slice(0, -30),
    'not a feed': '<html><body>Hello</body></html>',
    'plain text': 'Service Unavailable',
    'empty body': '   ',
    'truncated JSON': '{"version":"https://jsonfeed.org/version/1.1","title":"x","items":[{"id":"1"',
    'JSON that is not a feed': '{"hello":"world"}',
  };
  for (const [name, body] of Object.entries(cases)) {
    it(`throws FeedParseError on ${name}`, () => {
      expect(() => parseFeed(body, options)).toThrow(FeedParseError);
      try {
        parseFeed(body, options);
      } catch (error) {
        expect((error as FeedParseError).source).toBe('test');
        expect((error as Error).message.length).toBeLessThan(80);
      }
    });
  }
});

describe('parseFeed: untrusted text', () => {
  it('strips <script> and markup from titles, keeping escaped text literal', () => {
    const [stripped, literal] = parseFeed(
      rss(`
        <item><guid>a</guid><title><![CDATA[<script>alert(1)</script><b>Senior</b> <img src=x onerror=alert(2)>dev]]></title></item>
        <item><guid>b</guid><title><![CDATA[Fix &lt;script&gt;alert(1)&lt;/script&gt; bug]]></title></item>`),
      options,
    );
    expect(stripped.title).toBe('Senior dev');
    expect(stripped.title).not.toContain('alert');
    // Escaped markup is text about a tag; it stays literal and the email layer escapes it.
    expect(literal.title).toBe('Fix <script>alert(1)</script> bug');
  });

  it('drops script and style contents from descriptions and never keeps link targets', () => {
    const [posting] = parseFeed(
      rss(`<item><guid>a</guid><title>t</title><description><![CDATA[
        <style>p{color:red}</style><p>Hello <a href="javascript:alert(1)">there</a></p>
        <script>document.cookie</script><iframe src="https://evil.example">x</iframe>]]></description></item>`),
      options,
    );
    expect(posting.description).toBe('Hello there');
  });

  it('removes invisible bidi and control characters', () => {
    const [posting] = parseFeed(rss('<item><guid>a</guid><title>Pay\u202Eevil\u200B me</title></item>'), options);
    expect(posting.title).toBe('Payevil me');
  });

  it('caps a 1 MB description at MAX_DESCRIPTION chars with an ellipsis, quickly, and the cut can be told', () => {
    const huge = `<p>${'word '.repeat(200_000)}</p>`;
    const started = performance.now();
    const [posting] = parseFeed(rss(`<item><guid>a</guid><title>t</title><description><![CDATA[${huge}]]></description></item>`), options);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(posting.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION);
    expect(posting.description.length).toBeGreaterThanOrEqual(MAX_DESCRIPTION - 1);
    expect(posting.description.endsWith('…')).toBe(true);
    expect(isTextCut(posting.description)).toBe(true);
  });

  it('caps titles at 300 chars', () => {
    const [posting] = parseFeed(rss(`<item><guid>a</guid><title>${'x'.repeat(1_000)}</title></item>`), options);
    expect(posting.title.length).toBe(300);
  });

  it('turns javascript:, data: and other non-http links into null', () => {
    const items = [
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'data:text/html,<b>x</b>',
      'mailto:a@b.c',
      'https://user:pw@evil.example/',
    ]
      .map((link, i) => `<item><guid>g${i}</guid><title>t${i}</title><link><![CDATA[${link}]]></link></item>`)
      .join('');
    const postings = parseFeed(rss(items), options);
    expect(postings.map((p) => p.url)).toEqual([null, null, null, null, null]);
  });

  it('resolves relative links against the feed URL when the feed has no usable home link', () => {
    const [posting] = parseFeed(rss('<item><guid>a</guid><title>t</title><link>job/7</link></item>', 'javascript:void(0)'), options);
    expect(posting.url).toBe('https://feeds.example.com/job/7');
  });
});

describe('parseFeed: ids and dedupe', () => {
  it('uses the guid, else the link, else a stable content hash', () => {
    const body = rss(`
      <item><guid>the-guid</guid><title>a</title><link>https://jobs.example.com/a</link></item>
      <item><title>b</title><link>https://jobs.example.com/b</link></item>
      <item><title>c</title><description>only text</description><pubDate>Mon, 30 Nov 2026 05:00:00 GMT</pubDate></item>`);
    const [byGuid, byLink, byContent] = parseFeed(body, options);
    expect(byGuid.id).toBe(postingId('test', 'the-guid'));
    expect(byLink.id).toBe(postingId('test', 'https://jobs.example.com/b'));
    expect(byLink.guid).toBeNull();
    expect(byContent.url).toBeNull();
    expect(byContent.id).toMatch(/^test_[A-Za-z0-9_-]{20}$/);
    expect(parseFeed(body, options)[2].id).toBe(byContent.id);
    expect(new Set([byGuid.id, byLink.id, byContent.id]).size).toBe(3);
  });

  it('drops items with neither title nor link', () => {
    const postings = parseFeed(
      rss(`<item><guid>a</guid><description>no title</description></item>
           <item><guid>b</guid><title><![CDATA[<script>x</script>]]></title><link>javascript:x</link></item>
           <item><guid>c</guid><link>https://jobs.example.com/c</link></item>`),
      options,
    );
    expect(postings.map((p) => p.guid)).toEqual(['c']);
    expect(postings[0].title).toBe('');
  });

  it('collapses duplicate items, keeping the first', () => {
    const postings = parseFeed(
      rss(`<item><guid>dup</guid><title>first</title></item>
           <item><guid>other</guid><title>other</title></item>
           <item><guid> dup </guid><title>second</title></item>`),
      options,
    );
    expect(postings.map((p) => p.title)).toEqual(['first', 'other']);
  });

  it('dedupes skills case-insensitively and caps them at 30', () => {
    const categories = Array.from({ length: 40 }, (_, i) => `<category>skill-${i}</category>`).join('');
    const [many] = parseFeed(rss(`<item><guid>a</guid><title>t</title>${categories}</item>`), options);
    expect(many.skills).toHaveLength(30);
    const [few] = parseFeed(
      rss(
        `<item><guid>a</guid><title>t</title><category>React</category><description>Skills: react, Node.js; REACT, node.js</description></item>`,
      ),
      options,
    );
    expect(few.skills).toEqual(['React', 'Node.js']);
  });

  it('keeps ids safe for Firestore', () => {
    for (const posting of parseFeed(readFixture('jobs.rss.xml'), options)) {
      expect(posting.id).toMatch(/^test_[A-Za-z0-9_-]{20}$/);
    }
  });
});
