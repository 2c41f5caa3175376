import { describe, expect, it } from 'vitest';
import { fitForChannel, renderChannelMessage } from '../../../lib/channels/formats/render-channel-message';
import { alertOf, digestOf, KINDS, LINKS, longestPosting, realisticPostings, TARGET, testOf } from './channel-postings';
import { limitBreaks } from './platform-limits';

/** The posting ids or titles a body shows, to count what made it into a message. */
function shownCount(kind: (typeof KINDS)[number], body: string): number {
  const json = JSON.parse(body);
  if (kind === 'slack') return json.blocks.filter((b: { text?: { text: string } }) => b.text?.text.startsWith('*')).length;
  if (kind === 'discord') return json.embeds.length;
  if (kind === 'telegram') return (json.text.match(/^<b><a href=/gm) ?? []).length;
  return json.data.postings.length;
}

/** The count in "and N more — see your archive" (a reasons line's "and N more" has no dash after it). */
const moreOf = (kind: (typeof KINDS)[number], body: string): number | null => {
  if (kind === 'webhook') return JSON.parse(body).data.more;
  const found = /and (\d+) more — /.exec(body);
  return found ? Number(found[1]) : null;
};

describe('every kind renders within every limit its platform documents', () => {
  for (const kind of KINDS) {
    it(`${kind}: a realistic alert, a digest and a verification are valid JSON within the limits`, () => {
      for (const content of [alertOf(realisticPostings(3)), digestOf(realisticPostings(20), 4), testOf('K7Q-42M')]) {
        const { body } = renderChannelMessage(kind, content, TARGET);
        expect(() => JSON.parse(body)).not.toThrow();
        expect(limitBreaks(kind, body), `${kind} ${content.type}`).toEqual([]);
      }
    });

    it(`${kind}: a 25-posting alert at every field's longest stays within the limits, the rest counted in "more"`, () => {
      const postings = Array.from({ length: 25 }, (_, i) => longestPosting(i));
      const { body } = renderChannelMessage(kind, alertOf(postings, 3), TARGET);
      expect(limitBreaks(kind, body)).toEqual([]);
      const shown = shownCount(kind, body);
      expect(shown).toBeGreaterThan(0);
      // The caller's plan holds: the message shows at least what fitForChannel promised.
      expect(shown).toBeGreaterThanOrEqual(fitForChannel(kind, postings));
      // What did not fit is counted, with what the caller had already left out.
      expect(moreOf(kind, body)).toBe(25 - shown + 3);
      if (kind !== 'webhook') expect(body).toContain('see your archive');
    });

    it(`${kind}: a digest of 50 realistic postings keeps the best first and counts the rest`, () => {
      const postings = realisticPostings(50);
      const { body } = renderChannelMessage(kind, digestOf(postings), TARGET);
      expect(limitBreaks(kind, body)).toEqual([]);
      const shown = shownCount(kind, body);
      expect(moreOf(kind, body)).toBe(50 - shown);
      // The caller sends what fitForChannel said and counts the rest: all of it shows.
      const planned = fitForChannel(kind, postings);
      const sent = renderChannelMessage(kind, digestOf(postings.slice(0, planned), 50 - planned), TARGET).body;
      expect(shownCount(kind, sent)).toBe(planned);
      expect(moreOf(kind, sent)).toBe(50 - planned);
    });
  }

  it('one posting at every field’s longest, its link full of "&", is always shown, never only counted', () => {
    const posting = { ...longestPosting(0), url: `https://jobs.example.com/?${'a=1&'.repeat(500)}` };
    for (const kind of KINDS) {
      const { body } = renderChannelMessage(kind, alertOf([posting]), TARGET);
      expect(limitBreaks(kind, body), kind).toEqual([]);
      expect(shownCount(kind, body), kind).toBe(1);
      expect(fitForChannel(kind, [posting]), kind).toBe(1);
    }
  });

  it('a chat holds a readable number of realistic postings: the caller is not told to send one at a time', () => {
    const counts = Object.fromEntries(KINDS.map((kind) => [kind, fitForChannel(kind, realisticPostings(50))]));
    expect(counts.slack).toBeGreaterThanOrEqual(15);
    expect(counts.discord).toBe(10);
    expect(counts.telegram).toBeGreaterThanOrEqual(10);
    expect(counts.webhook).toBe(50);
  });
});

describe('a message is frozen bytes', () => {
  it('the same content gives the same body, byte for byte, for every kind (a retry sends what the row holds)', () => {
    for (const kind of KINDS) {
      const content = digestOf(realisticPostings(12), 2);
      expect(renderChannelMessage(kind, content, TARGET).body).toBe(
        renderChannelMessage(kind, structuredClone(content), { ...TARGET }).body,
      );
    }
  });

  it('a Telegram message without a bound chat is refused, not sent to nobody', () => {
    expect(() => renderChannelMessage('telegram', alertOf(realisticPostings(1)), { ...TARGET, chatId: null })).toThrow(/chat/);
  });
});

describe('links', () => {
  it('a javascript:, data: or credentialed posting URL is no link in any format; the title still shows', () => {
    for (const url of [
      'javascript:alert(document.cookie)',
      ' JaVaScRiPt:alert(1)',
      'data:text/html,<b>x</b>',
      'https://bank.example@evil.example/',
      '/relative',
    ]) {
      const posting = { ...realisticPostings(1)[0], url, title: 'The posting title' };
      for (const kind of KINDS) {
        const { body } = renderChannelMessage(kind, alertOf([posting]), TARGET);
        expect(body.toLowerCase(), `${kind} ${url}`).not.toContain('javascript:');
        expect(body, `${kind} ${url}`).not.toContain('data:text');
        expect(body, `${kind} ${url}`).not.toContain('evil.example');
        expect(body, kind).toContain('The posting title');
      }
    }
  });

  it('every message ends with the preferences link (pause or remove) and, but for a verification, the archive', () => {
    for (const kind of KINDS) {
      const alert = renderChannelMessage(kind, alertOf(realisticPostings(2)), TARGET).body;
      expect(alert, kind).toContain('https://scout.example.com/preferences?token=');
      expect(alert, kind).toContain('https://scout.example.com/archive?token=');
    }
    expect(renderChannelMessage('slack', testOf('ABC123'), TARGET).body).toContain(LINKS.preferences);
  });
});
