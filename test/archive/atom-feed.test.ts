import { parseAtomFeed } from 'feedsmith';
import { describe, expect, it } from 'vitest';
import { htmlText, privateUuid, renderAtomFeed, xmlText, type AtomFeed } from '../../lib/archive/atom-feed';
import { SCRIPT_TITLE } from '../support/hostile-sources';

const SECRET = 'test-link-secret-0123456789';
const SENT = new Date('2026-11-30T08:00:00Z');

const feed = (overrides: Partial<AtomFeed> = {}): AtomFeed => ({
  id: privateUuid(SECRET, 'feed:uid'),
  title: 'Scout: postings that fit you',
  subtitle: 'The postings Scout sent you',
  updated: SENT,
  author: 'Scout',
  selfUrl: 'https://scout.example.com/feed?token=abc.def',
  homeUrl: 'https://scout.example.com/',
  entries: [
    {
      id: privateUuid(SECRET, 'entry:uid_rss_a'),
      title: 'React engineer',
      updated: SENT,
      published: SENT,
      link: 'https://jobs.example.com/a?x=1&y=2',
      content: 'Acme · Berlin\n\nWhy: “react” in the title',
    },
  ],
  ...overrides,
});

describe('renderAtomFeed', () => {
  it('is an Atom feed feedsmith reads back whole: id, title, updated, author, self link, and each entry', () => {
    const parsed = parseAtomFeed(renderAtomFeed(feed()));
    expect(parsed).toMatchObject({
      id: feed().id,
      title: { type: 'text', value: 'Scout: postings that fit you' },
      updated: SENT.toISOString(),
      authors: [{ name: 'Scout' }],
    });
    expect(parsed.links).toEqual(
      expect.arrayContaining([
        { href: 'https://scout.example.com/feed?token=abc.def', rel: 'self', type: 'application/atom+xml' },
        { href: 'https://scout.example.com/', rel: 'alternate', type: 'text/html' },
      ]),
    );
    expect(parsed.entries).toHaveLength(1);
    expect(parsed.entries![0]).toMatchObject({
      id: feed().entries[0].id,
      title: { type: 'text', value: 'React engineer' },
      updated: SENT.toISOString(),
      published: SENT.toISOString(),
      links: [{ href: 'https://jobs.example.com/a?x=1&y=2', rel: 'alternate', type: 'text/html' }],
      content: { type: 'text', value: 'Acme · Berlin\n\nWhy: “react” in the title' },
    });
  });

  it('hostile posting text arrives as the same text, never as markup, and what XML cannot carry is dropped', () => {
    const hostile = `${SCRIPT_TITLE} ]]> &amp; <![CDATA[x]]> \ud800 "quoted" 'single'`;
    const xml = renderAtomFeed(
      feed({ entries: [{ ...feed().entries[0], title: hostile, content: `<img src=x onerror=alert(1)>${hostile}`, link: null }] }),
    );
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('<img');
    expect(xml).not.toContain(']]>');
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    const [entry] = parseAtomFeed(xml).entries!;
    const expected = `Senior <script>alert(1)</script> Engineer[31m\u202e ]]> &amp; <![CDATA[x]]>  "quoted" 'single'`;
    expect(entry.title).toEqual({ type: 'text', value: expected });
    expect(entry.content).toEqual({ type: 'text', value: `<img src=x onerror=alert(1)>${expected}` });
    // Without a safe link the entry has no link at all; its content stands for it.
    expect(entry.links).toBeUndefined();
  });

  it('an html content is Scout’s HTML escaped once more as XML: a reader gets the markup Scout wrote, and a posting’s as text', () => {
    const hostile = `${SCRIPT_TITLE} ]]> & \ud800 "quoted" 'single'`;
    const html = `<p>${htmlText(hostile)}</p>\n<p><a href="${htmlText('https://scout.example.com/not-a-fit?token=a.b&x="y"')}">Not a fit</a></p>`;
    const xml = renderAtomFeed(feed({ entries: [{ ...feed().entries[0], content: html, contentType: 'html' }] }));
    expect(xml).toContain('<content type="html">&lt;p&gt;Senior &amp;lt;script&amp;gt;');
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('<p>');
    const [entry] = parseAtomFeed(xml).entries!;
    expect(entry.content).toEqual({
      type: 'html',
      value:
        '<p>Senior &lt;script&gt;alert(1)&lt;/script&gt; Engineer[31m\u202e ]]&gt; &amp;  &quot;quoted&quot; &#39;single&#39;</p>\n' +
        '<p><a href="https://scout.example.com/not-a-fit?token=a.b&amp;x=&quot;y&quot;">Not a fit</a></p>',
    });
  });

  it('an empty feed is still a valid feed', () => {
    const parsed = parseAtomFeed(renderAtomFeed(feed({ entries: [] })));
    expect(parsed.title).toEqual({ type: 'text', value: 'Scout: postings that fit you' });
    expect(parsed.entries ?? []).toEqual([]);
  });
});

describe('xmlText', () => {
  it.each([
    ['a & b', 'a &amp; b'],
    ['<b>', '&lt;b&gt;'],
    [`"x" 'y'`, '&quot;x&quot; &apos;y&apos;'],
    ['tab\tnew\nline\r', 'tab\tnew\nline\r'],
    ['nul\u0000 bell\u0007 esc\u001b', 'nul bell esc'],
    ['\uFFFE\uFFFF', ''],
    ['lone \uD800 high, lone \uDC00 low, pair \uD83D\uDE00', 'lone  high, lone  low, pair \uD83D\uDE00'],
  ])('%j → %j', (input, output) => expect(xmlText(input)).toBe(output));
});

describe('privateUuid', () => {
  it('is a stable urn:uuid (version 8) for one name, another for another name or secret', () => {
    const id = privateUuid(SECRET, 'entry:uid_rss_a');
    expect(id).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(privateUuid(SECRET, 'entry:uid_rss_a')).toBe(id);
    expect(privateUuid(SECRET, 'entry:uid_rss_b')).not.toBe(id);
    expect(privateUuid('another-secret-0123456789', 'entry:uid_rss_a')).not.toBe(id);
  });
});
