import { describe, expect, it } from 'vitest';
import { parseSalaryText } from '../../../lib/feeds/adapters/salary-text';

describe('parseSalaryText', () => {
  it.each([
    ['$120,000 - $150,000', { amount: 120_000, maxAmount: 150_000, currency: 'USD', kind: 'yearly' }],
    ['€60k - €75k', { amount: 60_000, maxAmount: 75_000, currency: 'EUR', kind: 'yearly' }],
    ['€85k–€105k', { amount: 85_000, maxAmount: 105_000, currency: 'EUR', kind: 'yearly' }],
    ['$180,000 – $220,000 + equity', { amount: 180_000, maxAmount: 220_000, currency: 'USD', kind: 'yearly' }],
    ['$150-200k', { amount: 150_000, maxAmount: 200_000, currency: 'USD', kind: 'yearly' }],
    ['NOK 850k–1M', { amount: 850_000, maxAmount: 1_000_000, currency: 'NOK', kind: 'yearly' }],
    ['£70k', { amount: 70_000, currency: 'GBP', kind: 'yearly' }],
    ['120k-160k USD', { amount: 120_000, maxAmount: 160_000, currency: 'USD', kind: 'yearly' }],
    ['CA$140,000 to CA$165,000', { amount: 140_000, maxAmount: 165_000, currency: 'CAD', kind: 'yearly' }],
    ['$90-$120/hr', { amount: 90, maxAmount: 120, currency: 'USD', kind: 'hourly' }],
    ['$18 - $22/hour', { amount: 18, maxAmount: 22, currency: 'USD', kind: 'hourly' }],
    ['€65 per hour', { amount: 65, currency: 'EUR', kind: 'hourly' }],
    ['USD 100k/yr', { amount: 100_000, currency: 'USD', kind: 'yearly' }],
    ['$95 an hour', { amount: 95, currency: 'USD', kind: 'hourly' }],
  ])('reads %s', (text, budget) => {
    expect(parseSalaryText(text)).toEqual(budget);
  });

  it.each(['Competitive', '', '3-month contract', '2 days onsite', '$8,000/month', '$30-40', 'Series A, $20M raised', 'Team of 12'])(
    'says nothing rather than guess for %j',
    (text) => {
      expect(parseSalaryText(text)).toBeNull();
    },
  );

  it('a provider that implies a currency lends it to text that names none', () => {
    expect(parseSalaryText('40,000 - 50,000', { defaultCurrency: 'USD' })).toEqual({
      amount: 40_000,
      maxAmount: 50_000,
      currency: 'USD',
      kind: 'yearly',
    });
    expect(parseSalaryText('40,000 - 50,000')).toBeNull();
  });
});

describe('parseSalaryText on hostile input', () => {
  it('reads only the start of a huge field, quickly', () => {
    const started = Date.now();
    expect(parseSalaryText(`$90k ${'1,'.repeat(500_000)}`)).toEqual({ amount: 90_000, currency: 'USD', kind: 'yearly' });
    expect(parseSalaryText('9'.repeat(1_000_000), { defaultCurrency: 'USD' })).toBeNull();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
