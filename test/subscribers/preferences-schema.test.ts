import { describe, expect, it } from 'vitest';
import { splitKeywordList } from '../../lib/subscribers/preference-fields';
import { parsePreferences } from '../../lib/subscribers/preferences-schema';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';

describe('splitKeywordList (shared by signup and preferences)', () => {
  it('splits text and list items on commas and line breaks, trims, lowercases, drops empty pieces and repeats', () => {
    expect(splitKeywordList(' react , node.js\r\n\nvue,, ')).toEqual(['react', 'node.js', 'vue']);
    expect(splitKeywordList([' a, b ', ' ', 'c', 'A'])).toEqual(['a', 'b', 'c']);
  });
});

describe('parsePreferences', () => {
  it('normalises keywords (case, inner whitespace, duplicates) and reads the minimums as a form sends them', () => {
    expect(
      parsePreferences({
        keywords: 'React,  Type \t Script\nreact',
        excludes: 'PHP',
        minFixed: '$1,500.50',
        minYearly: '90k',
        mode: 'daily',
      }),
    ).toEqual({
      ok: true,
      preferences: {
        keywords: ['react', 'type script'],
        excludes: ['php'],
        minPay: { fixed: { amount: 1500.5, currency: 'USD' }, hourly: null, yearly: { amount: 90_000, currency: 'USD' } },
        mode: 'daily',
        // No query written: which of the lists and the stored query wins is decided with the stored one.
        query: '',
      },
    });
    expect(parsePreferences({ keywords: ['Go'], mode: 'instant' })).toEqual({
      ok: true,
      preferences: { keywords: ['go'], excludes: [], query: '', minPay: NO_MIN_PAY, mode: 'instant' },
    });
    expect(parsePreferences({ keywords: 'go', minFixed: '', minHourly: '', minYearly: '', excludes: '', mode: 'instant' })).toMatchObject({
      ok: true,
      preferences: { minPay: NO_MIN_PAY, excludes: [] },
    });
    expect(parsePreferences({ keywords: 'go', minHourly: 0, minCurrency: 'EUR', mode: 'instant' })).toMatchObject({
      ok: true,
      preferences: { minPay: { hourly: { amount: 0, currency: 'EUR' } } },
    });
    // A page from before per-kind minimums posts minBudget: the fixed minimum in USD it always meant.
    expect(parsePreferences({ keywords: 'go', minBudget: '500', mode: 'instant' })).toMatchObject({
      ok: true,
      preferences: { minPay: { fixed: { amount: 500, currency: 'USD' } } },
    });
  });

  it('counts keywords after removing duplicates: 30 entries of which 25 distinct pass', () => {
    const keywords = [...Array.from({ length: 25 }, (_, i) => `k${i}`), 'K1', 'k2', 'K3 ', ' k4', 'k5'].join(',');
    expect(parsePreferences({ keywords, mode: 'daily' })).toMatchObject({ ok: true });
  });

  it('answers one message per field', () => {
    expect(
      parsePreferences({
        keywords: Array.from({ length: 26 }, (_, i) => `k${i}`).join('\n'),
        excludes: `ok, ${'x'.repeat(61)}`,
        minFixed: '-3',
        mode: 'hourly',
      }),
    ).toEqual({
      ok: false,
      errors: {
        keywords: 'enter at most 25 keywords',
        excludes: 'each exclude must be at most 60 characters',
        minFixed: 'must be 0 or more',
        mode: 'choose instant, daily, weekly or feed',
      },
    });
    expect(parsePreferences({})).toEqual({
      ok: false,
      errors: { keywords: 'enter at least one keyword', mode: 'choose instant, daily, weekly or feed' },
    });
    expect(parsePreferences({ keywords: 'go', mode: 'daily', minHourly: '12abc' })).toEqual({
      ok: false,
      errors: { minHourly: 'must be an amount, like 500, $1,500 or 150k' },
    });
    expect(parsePreferences({ keywords: 'go', mode: 'daily', minYearly: '20000000' })).toEqual({
      ok: false,
      errors: { minYearly: 'must be at most 10,000,000' },
    });
    expect(parsePreferences({ keywords: 42, mode: 'daily' })).toEqual({
      ok: false,
      errors: { keywords: 'must be text or a list of words' },
    });
    expect(parsePreferences('nonsense')).toMatchObject({ ok: false, errors: { keywords: expect.any(String) } });
  });
});

describe('parsePreferences: the same rule for keyword terms as signup', () => {
  const base = { keywords: 'react', mode: 'daily' };
  it("takes words in any script and c++, c#, node.js, ui/ux, r&d, o'reilly", () => {
    expect(parsePreferences({ ...base, keywords: "Разработчик, 開発, c++, C#, Node.js, UI/UX, R&D, O'Reilly" })).toMatchObject({
      ok: true,
      preferences: { keywords: ['разработчик', '開発', 'c++', 'c#', 'node.js', 'ui/ux', 'r&d', "o'reilly"] },
    });
  });

  it('refuses markup, control and zero-width characters, and punctuation-only terms, naming the field', () => {
    expect(parsePreferences({ ...base, keywords: 'react, <img src=x onerror=alert(1)>', excludes: 'php\u200b' })).toEqual({
      ok: false,
      errors: {
        keywords: 'each keyword may use only letters, digits, spaces and + # . - / & \' ("<" is not allowed)',
        excludes: "each exclude may use only letters, digits, spaces and + # . - / & ' (U+200B, an invisible character, is not allowed)",
      },
    });
    expect(parsePreferences({ ...base, excludes: '#' })).toEqual({
      ok: false,
      errors: { excludes: 'each exclude needs a letter or digit: "#" can never match a posting\'s words' },
    });
  });
});
