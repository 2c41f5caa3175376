import { describe, expect, it } from 'vitest';
import type { ChannelPosting } from '../../../lib/channels/channel-content';
import { renderChannelMessage } from '../../../lib/channels/formats/render-channel-message';
import { CHAT_HOSTILE_TEXTS, HOSTILE_TEXTS } from '../../support/hostile-texts';
import { SCRIPT_TITLE } from '../../support/hostile-sources';
import { alertOf, digestOf, KINDS, TARGET } from './channel-postings';
import { limitBreaks, scanTelegramHtml } from './platform-limits';

/**
 * Posting text is hostile in every format (design §2.12): whatever a feed writes in a title, a
 * company, a place, a pay line, a reason or a source name, no format lets it ping anyone, open a
 * link of its own, restyle the message, flip its direction or break the JSON or a limit. Each
 * hostile text is put in every field at once and rendered by every kind.
 */

const POSTING_URL = 'https://jobs.example.com/hostile-1';
const ALL = [...HOSTILE_TEXTS, ...CHAT_HOSTILE_TEXTS, SCRIPT_TITLE];

const everywhere = (text: string): ChannelPosting => ({
  id: 'hostile_1',
  title: text,
  url: POSTING_URL,
  company: text,
  place: text,
  pay: text,
  reasons: [text, text],
  fit: null,
  score: 50,
  source: text,
});

const render = (kind: (typeof KINDS)[number], text: string) =>
  renderChannelMessage(kind, digestOf([everywhere(text), everywhere(`${text} again`)]), TARGET).body;

/** Every string value in a JSON document. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether every one of `specials` in `text` is escaped by a backslash (a backslash escapes the next character). */
function allEscaped(text: string, specials: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (specials.includes(text[i])) return false;
  }
  return true;
}

describe('every hostile text, in every field, through every format', () => {
  it('stays valid JSON within the limits, with no control, bidi or half-emoji character left', () => {
    for (const text of ALL) {
      for (const kind of KINDS) {
        const body = render(kind, text);
        expect(limitBreaks(kind, body), `${kind}: ${JSON.stringify(text).slice(0, 60)}`).toEqual([]);
        for (const s of stringsIn(JSON.parse(body))) {
          expect(s, kind).not.toMatch(LONE_SURROGATE);
          expect(s, kind).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        }
      }
    }
  });

  it('Slack: the only control sequences are Scout’s links; no bold, italics, strike or code comes from a feed', () => {
    for (const text of ALL) {
      const json = JSON.parse(render('slack', text));
      const texts = [
        json.text,
        ...json.blocks.flatMap((b: { text?: { text: string }; elements?: { text: string }[] }) => [
          b.text?.text ?? '',
          ...(b.elements ?? []).map((e) => e.text),
        ]),
      ];
      for (const t of texts as string[]) {
        for (const [, target] of t.matchAll(/<([^>]*)>/g))
          expect(target, text).toMatch(/^https:\/\/(jobs|scout)\.example\.com\/[^|<>]*\|[^<>|]+$/);
        expect(t.replace(/<[^>]*>/g, ''), text).not.toMatch(/[<>]/);
        expect(t, text).not.toMatch(/&(?!amp;|lt;|gt;)/);
      }
      const postings = json.blocks.filter(
        (b: { type: string; text?: { text: string } }) => b.type === 'section' && b.text!.text.startsWith('*<'),
      );
      expect(postings).toHaveLength(2);
      for (const { text: section } of postings) {
        // Scout's bold around the title and italics around the source, and nothing of the feed's.
        expect(section.text.replace(/^\*<[^>]*>\*\n/, ''), text).not.toMatch(/[*~`]/);
        expect(section.text.replace(/\n_via [^\n_]*_$/, ''), text).not.toContain('_');
        expect(section.verbatim).toBe(true);
      }
    }
  });

  it('Discord: nothing is parsed — markdown and mention syntax escaped, every @ broken, no mention allowed', () => {
    const specials = '\\*_~`|>#-[]()<';
    for (const text of ALL) {
      const json = JSON.parse(render('discord', text));
      expect(json.allowed_mentions).toEqual({ parse: [] });
      expect(json.username).toBe('Scout');
      for (const embed of json.embeds) {
        expect(allEscaped(embed.title, specials), `title of ${text}`).toBe(true);
        for (const field of embed.fields) expect(allEscaped(field.value, specials), `${field.name} of ${text}`).toBe(true);
        for (const line of ((embed.description as string | undefined) ?? '').split('\n')) {
          const feeds = line.replace(/^Why: /, '').replace(/^\*via (.*)\*$/, '$1');
          expect(allEscaped(feeds, specials), `${line} of ${text}`).toBe(true);
        }
      }
      for (const s of stringsIn(json)) expect(s, text).not.toMatch(/@(?!\u200b)/);
    }
  });

  it('Telegram: well-formed HTML with only Scout’s tags and links; the feed’s text shows as text', () => {
    for (const text of ALL) {
      const { text: html } = JSON.parse(render('telegram', text));
      const scanned = scanTelegramHtml(html);
      expect(new Set(scanned.tags), text).toEqual(new Set(['b', 'a', 'i']));
      for (const href of scanned.hrefs) expect(href, text).toMatch(/^https:\/\/(jobs|scout)\.example\.com\//);
    }
  });

  it('the webhook carries the text itself, cleaned to one line: JSON needs no escaping, the receiver escapes for its page', () => {
    const json = JSON.parse(render('webhook', '<!channel> *bold* [click](https://evil.example) </b><a href="x">'));
    expect(json.data.postings[0].title).toBe('<!channel> *bold* [click](https://evil.example) </b><a href="x">');
    expect(json.data.postings[0].url).toBe(POSTING_URL);
  });
});

describe('each dangerous form is gone and its escaped form is there', () => {
  const cases: { input: string; kind: (typeof KINDS)[number]; absent: string[]; present: string[] }[] = [
    { input: '<!channel> everyone look', kind: 'slack', absent: ['<!channel>'], present: ['&lt;!channel&gt; everyone look'] },
    { input: '<!here> now', kind: 'slack', absent: ['<!here>'], present: ['&lt;!here&gt; now'] },
    { input: '<@123> and <@U024BE7LH|bob>', kind: 'slack', absent: ['<@'], present: ['&lt;@123&gt; and &lt;@U024BE7LH|bob&gt;'] },
    { input: '<#123> and <#C024BE7LR|general>', kind: 'slack', absent: ['<#'], present: ['&lt;#123&gt;'] },
    {
      input: '<https://evil.example|innocent label>',
      kind: 'slack',
      absent: ['<https://evil'],
      present: ['&lt;https://evil.example|innocent label&gt;'],
    },
    {
      input: '&lt;b&gt; already escaped &amp; more',
      kind: 'slack',
      absent: [],
      present: ['&amp;lt;b&amp;gt; already escaped &amp;amp; more'],
    },
    {
      input: '*bold* _italic_ ~strike~ `code` ```block```',
      kind: 'slack',
      absent: ['*bold*', '_italic_', '~strike~', '`code`'],
      present: ['∗bold∗ ˍitalicˍ ∼strike∼ ˋcodeˋ ˋˋˋblockˋˋˋ'],
    },
    { input: '@everyone ping', kind: 'discord', absent: ['@everyone'], present: ['@\u200beveryone ping'] },
    { input: '@here ping', kind: 'discord', absent: ['@here'], present: ['@\u200bhere ping'] },
    {
      input: '<@123> and <@U024BE7LH|bob>',
      kind: 'discord',
      absent: [' <@', '"<@'],
      present: ['\\<@\u200b123\\> and \\<@\u200bU024BE7LH\\|bob\\>'],
    },
    { input: '<@&123> role', kind: 'discord', absent: ['"<@&'], present: ['\\<@\u200b&123\\> role'] },
    { input: '<#123> and <#C024BE7LR|general>', kind: 'discord', absent: ['"<#'], present: ['\\<\\#123\\>'] },
    {
      input: '[click](https://evil.example)',
      kind: 'discord',
      absent: ['[click](https://evil.example)'],
      present: ['\\[click\\]\\(https://evil.example\\)'],
    },
    { input: '||spoiler||', kind: 'discord', absent: ['||spoiler||'], present: ['\\|\\|spoiler\\|\\|'] },
    {
      input: '*bold* _italic_ ~strike~ `code` ```block```',
      kind: 'discord',
      absent: ['*bold*'],
      present: ['\\*bold\\* \\_italic\\_ \\~strike\\~ \\`code\\`'],
    },
    { input: '**very bold** __underline__', kind: 'discord', absent: ['**very'], present: ['\\*\\*very bold\\*\\* \\_\\_underline\\_\\_'] },
    { input: '\\*escaped\\* backslashes \\', kind: 'discord', absent: [], present: ['\\\\\\*escaped\\\\\\* backslashes \\\\'] },
    {
      input: '</b><a href="https://evil.example">x</a><b>',
      kind: 'telegram',
      absent: ['<a href="https://evil'],
      present: ['&lt;/b&gt;&lt;a href="https://evil.example"&gt;x&lt;/a&gt;&lt;b&gt;'],
    },
    {
      input: '&lt;b&gt; already escaped &amp; more',
      kind: 'telegram',
      absent: [],
      present: ['&amp;lt;b&amp;gt; already escaped &amp;amp; more'],
    },
    { input: '<script>alert("x")</script>', kind: 'telegram', absent: ['<script>'], present: ['&lt;script&gt;alert("x")&lt;/script&gt;'] },
  ];

  for (const { input, kind, absent, present } of cases) {
    it(`${kind}: ${input}`, () => {
      // Compared on the decoded JSON strings: what the platform reads, not how JSON spells it.
      const strings = stringsIn(JSON.parse(render(kind, input))).join('\n"');
      for (const a of absent) expect(strings).not.toContain(a);
      for (const p of present) expect(strings).toContain(p);
    });
  }
});

describe('what is cut, and how', () => {
  it('a 10,000-character title is cut to a card’s length with "…" in every chat, and to 500 in the webhook', () => {
    const title = 'Senior engineer '.repeat(625);
    for (const kind of KINDS) {
      const json = JSON.parse(renderChannelMessage(kind, alertOf([{ ...everywhere('x'), title }]), TARGET).body);
      const shown = stringsIn(json).filter((s) => s.includes('Senior engineer Senior'));
      expect(shown.length, kind).toBeGreaterThan(0);
      for (const s of shown) expect(s.length, kind).toBeLessThan(kind === 'webhook' ? 501 : 1000);
      expect(
        shown.some((s) => /[a-z]…/.test(s)),
        kind,
      ).toBe(true);
    }
  });

  it('a title of only whitespace is shown as "Untitled posting"', () => {
    for (const kind of KINDS) {
      const body = renderChannelMessage(kind, alertOf([{ ...everywhere('x'), title: ' \n\t\u00a0 ' }]), TARGET).body;
      expect(body, kind).toContain('Untitled posting');
    }
  });

  it('an emoji at the cut is kept whole or left out, never halved, wherever the limit falls', () => {
    for (let lead = 190; lead <= 201; lead++) {
      for (const emoji of ['🚀', '👩🏽‍💻', '🇩🇪']) {
        const title = `${'x'.repeat(lead)}${emoji.repeat(200)}`;
        for (const kind of KINDS) {
          const json = JSON.parse(
            renderChannelMessage(kind, alertOf([{ ...everywhere('y'), title: lead > 195 ? title.repeat(3) : title }]), TARGET).body,
          );
          for (const s of stringsIn(json)) expect(s, `${kind} ${lead} ${emoji}`).not.toMatch(LONE_SURROGATE);
          const cut = stringsIn(json).find((s) => s.includes('xxxxx') && s.includes('…'));
          expect(cut, `${kind} ${lead} ${emoji}`).toBeDefined();
          // Whatever is left of the emoji run before the "…" is whole emoji.
          const run = /x+((?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|\u200d)*)…/u.exec(cut!)![1];
          expect(
            [...new Intl.Segmenter().segment(run)].every((g) => g.segment === emoji),
            `${kind} ${lead} ${emoji}: ${run}`,
          ).toBe(true);
        }
      }
    }
  });

  it('right-to-left overrides are removed and zero-width joiners inside emoji kept', () => {
    for (const kind of KINDS) {
      const body = renderChannelMessage(kind, alertOf([everywhere('a\u202Eevil\u202C b 👨‍👩‍👧')]), TARGET).body;
      const strings = stringsIn(JSON.parse(body)).join('\n');
      expect(strings, kind).not.toMatch(/[\u202a-\u202e]/);
      expect(strings, kind).toContain('aevil b 👨‍👩‍👧');
    }
  });
});
