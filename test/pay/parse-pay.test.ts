import { describe, expect, it } from 'vitest';
import { parseAmount, parsePayText, statedPay } from '../../lib/pay/parse-pay';

const usd = (amount: number, kind: string, maxAmount?: number) => ({ amount, currency: 'USD', kind, ...(maxAmount ? { maxAmount } : {}) });

describe('parsePayText: what a posting says it pays', () => {
  it('reads a fixed budget after its label, in any currency', () => {
    expect(parsePayText('Budget: $1,500')).toEqual(usd(1500, 'fixed'));
    expect(parsePayText('Budget: $1,500.')).toEqual(usd(1500, 'fixed'));
    expect(parsePayText('Budget: 2,000 GBP')).toEqual({ amount: 2000, currency: 'GBP', kind: 'fixed' });
    expect(parsePayText('Budget: USD 3k')).toEqual(usd(3000, 'fixed'));
    expect(parsePayText('€800 fixed')).toEqual({ amount: 800, currency: 'EUR', kind: 'fixed' });
    expect(parsePayText('We pay €1.200 fixed-price')).toEqual({ amount: 1200, currency: 'EUR', kind: 'fixed' });
    expect(parsePayText('Budget Range: • $700–$1,000 USD total')).toEqual(usd(700, 'fixed', 1000));
  });

  it('keeps both ends of a range: the lower bound as amount, the top as maxAmount', () => {
    expect(parsePayText('$18 - $22/hr')).toEqual(usd(18, 'hourly', 22));
    expect(parsePayText('Hourly Range: $30.00-$60.00')).toEqual(usd(30, 'hourly', 60));
    expect(parsePayText('Budget: $1,000 - $2,500')).toEqual(usd(1000, 'fixed', 2500));
    expect(parsePayText('Paying $35 - 50 per hour')).toEqual(usd(35, 'hourly', 50));
    expect(parsePayText('Salary Range: $130,000/year - $150,000/year + equity')).toEqual(usd(130_000, 'yearly', 150_000));
  });

  it('reads hourly rates from a label or a period', () => {
    expect(parsePayText('Hourly: $45')).toEqual(usd(45, 'hourly'));
    expect(parsePayText('Rate: £55/h')).toEqual({ amount: 55, currency: 'GBP', kind: 'hourly' });
    expect(parsePayText('$95 an hour', { within: 'field' })).toEqual(usd(95, 'hourly'));
    expect(parsePayText('Rate: 15 USD per hour (rates vary per country)')).toEqual(usd(15, 'hourly'));
  });

  it('reads daily and monthly pay as their own kinds', () => {
    expect(parsePayText('£450 per day')).toEqual({ amount: 450, currency: 'GBP', kind: 'daily' });
    expect(parsePayText('Day rate: £500')).toEqual({ amount: 500, currency: 'GBP', kind: 'daily' });
    expect(parsePayText('$8,000/month', { within: 'field' })).toEqual(usd(8000, 'monthly'));
    expect(parsePayText('Compensation range: $1800 - $2200 AUD / Monthly')).toEqual({
      amount: 1800,
      maxAmount: 2200,
      currency: 'AUD',
      kind: 'monthly',
    });
    expect(parsePayText('The starting Salary for this role is €2200 Euros per month.')).toEqual({
      amount: 2200,
      currency: 'EUR',
      kind: 'monthly',
    });
  });

  it('reads a weekly figure as 52 weeks of a year, as for pay stated in fields', () => {
    expect(parsePayText('Weekly stipend of 3,850 USD / 2,310 GBP')).toEqual(usd(200_200, 'yearly'));
  });

  it('reads the four real yearly salaries the boards sent', () => {
    expect(parsePayText('Annual Salary: $265,000 — $365,000 USD')).toEqual(usd(265_000, 'yearly', 365_000));
    expect(parsePayText('Compensation\n$75k - $105k salary + benefits, 100% US-based remote')).toEqual(usd(75_000, 'yearly', 105_000));
    expect(parsePayText('The United States base range for this position is $67,172 - $95,960 plus equity.')).toEqual(
      usd(67_172, 'yearly', 95_960),
    );
    expect(parsePayText('The estimated salary range for this position is estimated to be $60,000 - $97,000/year.')).toEqual(
      usd(60_000, 'yearly', 97_000),
    );
  });

  it('applies k and M multipliers, also when written once for a range', () => {
    expect(parsePayText('$150-200k', { within: 'field' })).toEqual(usd(150_000, 'yearly', 200_000));
    expect(parsePayText('NOK 850k–1M', { within: 'field' })).toEqual({
      amount: 850_000,
      maxAmount: 1_000_000,
      currency: 'NOK',
      kind: 'yearly',
    });
    expect(parsePayText('$31,2k- $52k', { within: 'field' })).toEqual(usd(31_200, 'yearly', 52_000));
  });

  it('names the currency by symbol or ISO code, a code after the amount naming which dollar', () => {
    expect(parsePayText('CA$140,000 to CA$165,000', { within: 'field' })).toEqual({
      amount: 140_000,
      maxAmount: 165_000,
      currency: 'CAD',
      kind: 'yearly',
    });
    expect(parsePayText('120k-160k USD', { within: 'field' })).toEqual(usd(120_000, 'yearly', 160_000));
    expect(parsePayText('€85k–€105k', { within: 'field' })).toEqual({
      amount: 85_000,
      maxAmount: 105_000,
      currency: 'EUR',
      kind: 'yearly',
    });
    expect(parsePayText('France Annual Pay Range €61.000 — €72.000 EUR')).toEqual({
      amount: 61_000,
      maxAmount: 72_000,
      currency: 'EUR',
      kind: 'yearly',
    });
  });

  it('keeps a range without a currency as a number of unknown currency, never guessed', () => {
    expect(parsePayText('150-250k+', { within: 'field' })).toEqual({ amount: 150_000, maxAmount: 250_000, currency: null, kind: 'yearly' });
    expect(parsePayText('Budget: 750')).toEqual({ amount: 750, currency: null, kind: 'fixed' });
    expect(parsePayText('Salary: 80,000 - 100,000 per year')).toEqual({
      amount: 80_000,
      maxAmount: 100_000,
      currency: null,
      kind: 'yearly',
    });
  });

  it('lends a provider-documented currency to text that names none', () => {
    expect(parsePayText('40,000 - 50,000', { within: 'field', defaultCurrency: 'USD' })).toEqual(usd(40_000, 'yearly', 50_000));
    expect(parsePayText('40,000 - 50,000', { within: 'field' })).toBeNull();
  });

  it('prefers the most explicitly stated pay over a loose sum elsewhere', () => {
    expect(parsePayText('Our AWS bill is $18k.\nHourly Range: $70.00-$120.00')).toEqual(usd(70, 'hourly', 120));
    expect(parsePayText('Base salary $150,000 - $180,000/year. Personal development stipend: $1000 per year.')).toEqual(
      usd(150_000, 'yearly', 180_000),
    );
  });

  it('reads a salary-sized range in a currency even without a pay word beside it', () => {
    expect(parsePayText('Fully remote position €46,728 - €62,953 + share appreciation rights')).toEqual({
      amount: 46_728,
      maxAmount: 62_953,
      currency: 'EUR',
      kind: 'yearly',
    });
  });
});

describe('parsePayText: money that is not pay', () => {
  it.each([
    ['funding', 'We raised a $50M Series B led by great investors.'],
    ['a valuation', 'At a $2B valuation, we are growing fast; competitive salary.'],
    ['revenue a year', 'Our clients range from large enterprises (>$100M per year) to small ones.'],
    ['a retirement plan', 'We offer a 401k with match and a great salary.'],
    ['a retirement plan in parentheses', 'Benefits: 401(k) and a competitive pay package.'],
    ['years', 'Salary: reviewed for 2024-2026.'],
    ['a headcount', 'We have 10,000 customers and great pay.'],
    ['a count with a period', 'Hop on calls (approx. 3–5 a week) when that beats typing; pay is fair.'],
    ['a signing bonus', 'Compensation: competitive. $10,000 signing bonus.'],
    ['an allowance', 'Salary is great. ¥20,750 monthly allowance for cell phone and internet.'],
    ['a perk a year', 'Up to $1,000 annually for third-party education, along with paid time.'],
    ['a fertility benefit', 'Fertility HRA (up to $10,000 per year) for all staff, plus base pay.'],
    ['a work budget', 'Remote working budget: €1,000 per year.'],
    ['a funding line', 'Funding for compute (~$15k/month) and other research expenses.'],
    ['a loose sum', 'Our AWS bill is $18k.'],
    ['a budget in words', 'Budget: negotiable'],
    ['a duration after a label', 'Budget: 2 weeks'],
    ['counts', 'We have 3 developers and 2 designers'],
    ['a range that runs downwards', 'The salary range for this position is $60,675- $101, 125 annually.'],
    ['nothing', ''],
  ])('not %s', (_, text) => {
    expect(parsePayText(text)).toBeNull();
  });

  it.each(['Competitive', '3-month contract', '2 days onsite', '$30-40', 'Series A, $20M raised', '$5M raised', 'Team of 12'])(
    'not the field %j',
    (text) => {
      expect(parsePayText(text, { within: 'field' })).toBeNull();
    },
  );
});

describe('parsePayText on hostile input', () => {
  it('reads a whole 100,000-character description in linear time', () => {
    const hostile = [
      '9'.repeat(100_000),
      '1,'.repeat(50_000),
      '$1-'.repeat(33_000),
      '$'.repeat(100_000),
      `${'salary '.repeat(10_000)}${'1.'.repeat(15_000)}`,
      '€1 k '.repeat(20_000),
    ];
    for (const text of hostile) {
      const started = performance.now();
      parsePayText(text);
      parsePayText(text, { within: 'field', defaultCurrency: 'USD' });
      expect(performance.now() - started, text.slice(0, 20)).toBeLessThan(500);
    }
  });

  it('finds pay after 90,000 characters of other text', () => {
    const text = `${'We build things with care. '.repeat(3_400)}Salary: $120,000 - $150,000 per year.`;
    expect(text.length).toBeGreaterThan(90_000);
    expect(parsePayText(text)).toEqual(usd(120_000, 'yearly', 150_000));
  });

  it('reads only the start of a field a megabyte long', () => {
    expect(parsePayText(`$90k ${'1,'.repeat(500_000)}`, { within: 'field' })).toEqual(usd(90_000, 'yearly'));
  });
});

describe('statedPay: pay a board states in fields', () => {
  it('keeps both bounds, either of which may be missing or zero (boards use 0 for "not given")', () => {
    expect(statedPay({ min: 120_000, max: 150_000, currency: 'usd', period: 'yearly' })).toEqual(usd(120_000, 'yearly', 150_000));
    expect(statedPay({ min: 0, max: 90_000, currency: 'USD', period: 'yearly' })).toEqual(usd(90_000, 'yearly'));
    expect(statedPay({ min: '45.0', max: '70.0', currency: 'USD', period: 'hourly' })).toEqual(usd(45, 'hourly', 70));
    expect(statedPay({ min: 0, max: 0, currency: 'USD', period: 'yearly' })).toBeNull();
  });

  it('keeps the period as stated, a week being 52 to the year', () => {
    expect(statedPay({ min: 8_000, max: null, currency: 'EUR', period: 'monthly' })).toEqual({
      amount: 8_000,
      currency: 'EUR',
      kind: 'monthly',
    });
    expect(statedPay({ min: 2_000, max: null, currency: 'GBP', period: 'weekly' })).toEqual({
      amount: 104_000,
      currency: 'GBP',
      kind: 'yearly',
    });
  });

  it('leaves a currency that is not an ISO code unknown unless the provider documents one', () => {
    expect(statedPay({ min: 500, max: null, currency: 'dollars', period: 'fixed' })).toEqual({
      amount: 500,
      currency: null,
      kind: 'fixed',
    });
    expect(statedPay({ min: 500, max: null, currency: null, period: 'fixed', defaultCurrency: 'USD' })).toEqual(usd(500, 'fixed'));
  });

  it('refuses an absurd figure', () => {
    expect(statedPay({ min: 1, max: 50_000_000, currency: 'USD', period: 'yearly' })).toBeNull();
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
