import { describe, expect, it } from 'vitest';
import { fitText, oneLine, rating, safeLink } from '../../../lib/channels/formats/channel-text';

describe('a feed’s string, made one safe line', () => {
  it('controls and newlines become single spaces, direction overrides go, half an emoji becomes U+FFFD, emoji sequences stay', () => {
    expect(oneLine(' Senior\n\n> Engineer\t\u0000\u0007\u001b[31m ')).toBe('Senior > Engineer [31m');
    expect(oneLine('a\u202Eexe.png\u202C \u2066b\u2069')).toBe('aexe.png b');
    expect(oneLine(`${'🚀'.slice(0, 1)} half`)).toBe('\uFFFD half');
    expect(oneLine('👩🏽‍💻 🇩🇪')).toBe('👩🏽‍💻 🇩🇪');
    expect(oneLine(null)).toBe('');
  });
});

describe('cutting to a length, escaped', () => {
  it('text that fits is only escaped', () => {
    expect(fitText('a&b', 10, (g) => (g === '&' ? '&amp;' : g))).toBe('a&amp;b');
  });

  it('measures after escaping and never cuts an entity in half', () => {
    const cut = fitText('&&&&&&', 12, (g) => (g === '&' ? '&amp;' : g));
    expect(cut).toBe('&amp;&amp;…');
    expect(cut.length).toBeLessThanOrEqual(12);
  });

  it('cuts at whole graphemes, the ellipsis included in the length', () => {
    expect(fitText('ab👩🏽‍💻cd', 5)).toBe('ab…');
    expect(fitText('🇩🇪🇩🇪🇩🇪', 5)).toBe('🇩🇪…');
    expect(fitText('x'.repeat(10_000), 200)).toHaveLength(200);
  });
});

describe('links', () => {
  it('only absolute http(s) URLs without credentials, at most 2048 characters', () => {
    expect(safeLink(' https://jobs.example.com/a b ')).toBe('https://jobs.example.com/a%20b');
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'mailto:a@b.c', '//evil.example', 'https://a@evil.example', '', null]) {
      expect(safeLink(bad), String(bad)).toBeNull();
    }
    expect(safeLink(`https://jobs.example.com/${'x'.repeat(2048)}`)).toBeNull();
  });
});

describe('the rating', () => {
  it('the model’s fit when it judged the posting, else the keyword score, whole and within 0–100', () => {
    const posting = { id: 'x', title: 't', url: '', company: null, place: null, pay: null, reasons: [], source: 's' };
    expect(rating({ ...posting, fit: 86, score: 40 })).toEqual({ label: 'Fit', text: '86/100' });
    expect(rating({ ...posting, fit: null, score: 40.6 })).toEqual({ label: 'Score', text: '41/100' });
    expect(rating({ ...posting, fit: Number.NaN, score: 140 })).toEqual({ label: 'Score', text: '100/100' });
  });
});
