import { describe, expect, it } from 'vitest';
import { parseScoutBudget } from '../../lib/feeds/scout-budget';

describe('parseScoutBudget', () => {
  it('accepts a well-formed extension and fills its documented defaults', () => {
    expect(parseScoutBudget({ budget: { amount: 500 } })).toEqual({ amount: 500, currency: 'USD', kind: 'fixed' });
    expect(parseScoutBudget({ budget: { amount: 80, currency: 'gbp', kind: 'hourly' } })).toEqual({
      amount: 80,
      currency: 'GBP',
      kind: 'hourly',
    });
  });

  it('keeps a range and every pay kind', () => {
    expect(parseScoutBudget({ budget: { amount: 90_000, maxAmount: 120_000, kind: 'yearly', currency: 'EUR' } })).toEqual({
      amount: 90_000,
      maxAmount: 120_000,
      currency: 'EUR',
      kind: 'yearly',
    });
    expect(parseScoutBudget({ budget: { amount: 400, kind: 'daily' } })).toEqual({ amount: 400, currency: 'USD', kind: 'daily' });
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
