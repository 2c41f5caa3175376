import { describe, expect, it } from 'vitest';
import { parseAmount, parseBudgetText, parseScoutBudget } from '../../lib/feeds/parse-budget';

describe('parseBudgetText', () => {
  const cases: Array<[string, ReturnType<typeof parseBudgetText>]> = [
    ['Budget: $1,500', { amount: 1500, currency: 'USD', kind: 'fixed' }],
    ['Budget: $1,500.', { amount: 1500, currency: 'USD', kind: 'fixed' }],
    ['Hourly Range: $30.00-$60.00', { amount: 60, currency: 'USD', kind: 'hourly' }],
    ['Hourly Range: $15 – $25', { amount: 25, currency: 'USD', kind: 'hourly' }],
    ['Hourly: $45', { amount: 45, currency: 'USD', kind: 'hourly' }],
    ['€800 fixed', { amount: 800, currency: 'EUR', kind: 'fixed' }],
    ['We pay €1.200 fixed-price', { amount: 1200, currency: 'EUR', kind: 'fixed' }],
    ['Budget: 2,000 GBP', { amount: 2000, currency: 'GBP', kind: 'fixed' }],
    ['Budget: USD 3k', { amount: 3000, currency: 'USD', kind: 'fixed' }],
    ['Budget: $1,000 - $2,500', { amount: 2500, currency: 'USD', kind: 'fixed' }],
    ['Budget: $40/hr', { amount: 40, currency: 'USD', kind: 'hourly' }],
    ['Paying $35 - 50 per hour', { amount: 50, currency: 'USD', kind: 'hourly' }],
    ['Budget: 750', { amount: 750, currency: 'USD', kind: 'fixed' }],
    ['Rate: £55/h', { amount: 55, currency: 'GBP', kind: 'hourly' }],
    ['Budget: negotiable', null],
    ['Budget: 2 weeks', null],
    ['We have 3 developers and 2 designers', null],
    ['', null],
  ];
  for (const [text, expected] of cases) {
    it(`"${text}"`, () => expect(parseBudgetText(text)).toEqual(expected));
  }

  it('prefers an explicit hourly range over a loose amount elsewhere', () => {
    expect(parseBudgetText('Our AWS bill is $18k.\nHourly Range: $70.00-$120.00')).toEqual({
      amount: 120,
      currency: 'USD',
      kind: 'hourly',
    });
  });
});

describe('parseAmount', () => {
  it.each([
    ['1,500', 1500],
    ['1.500', 1500],
    ['1,500.50', 1500.5],
    ['1.500,50', 1500.5],
    ['30.00', 30],
    ['2.5k', 2500],
    ['12', 12],
  ])('%s → %d', (raw, amount) => expect(parseAmount(raw)).toBe(amount));
});

describe('parseScoutBudget', () => {
  it('accepts a well-formed extension and fills defaults', () => {
    expect(parseScoutBudget({ budget: { amount: 500 } })).toEqual({ amount: 500, currency: 'USD', kind: 'fixed' });
    expect(parseScoutBudget({ budget: { amount: 80, currency: 'gbp', kind: 'hourly' } })).toEqual({
      amount: 80,
      currency: 'GBP',
      kind: 'hourly',
    });
  });

  it('ignores anything malformed', () => {
    for (const value of [
      null,
      'x',
      {},
      { budget: null },
      { budget: { amount: -1 } },
      { budget: { amount: '5' } },
      { budget: { amount: 5, kind: 'weekly' } },
    ]) {
      expect(parseScoutBudget(value)).toBeNull();
    }
  });
});
