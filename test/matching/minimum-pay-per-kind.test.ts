import { describe, expect, it } from 'vitest';
import type { Posting } from '../../lib/feeds/posting';
import { scorePosting } from '../../lib/matching/score-posting';
import { NO_MIN_PAY, type MinPay } from '../../lib/pay/minimum-pay';
import type { Budget } from '../../lib/pay/pay';

const posting = (title: string, budget: Budget | null): Posting => ({
  id: 'src_1',
  source: 'src',
  guid: null,
  title,
  url: null,
  description: '',
  budget,
  skills: [],
  publishedAt: null,
});
const subscriber = (minPay: Partial<MinPay>) => ({ keywords: ['engineer'], excludes: [], minPay: { ...NO_MIN_PAY, ...minPay } });
const usd = (amount: number) => ({ amount, currency: 'USD' });

const yearly = (amount: number, maxAmount: number, currency: string | null = 'USD'): Budget => ({
  amount,
  maxAmount,
  currency,
  kind: 'yearly',
});

describe('a minimum per kind of pay', () => {
  it('a yearly minimum of $100,000 gets the $150K–$231K posting and not the $60K–$97K one', () => {
    const s = subscriber({ yearly: usd(100_000) });
    const high = scorePosting(s, posting('Staff Engineer', yearly(150_000, 231_000)));
    const low = scorePosting(s, posting('Support Engineer', yearly(60_000, 97_000)));
    expect(high).toMatchObject({ matched: true });
    expect(high.matched && high.reasons).toContain('pay $150,000–$231,000/year meets your $100,000/year minimum');
    expect(low).toMatchObject({
      matched: false,
      nearMiss: 'under_min_budget',
      reason: 'pay $60,000–$97,000/year below your $100,000/year minimum',
    });
  });

  it('a range reaching the minimum with its top is kept: the top is what the posting may pay', () => {
    expect(scorePosting(subscriber({ yearly: usd(100_000) }), posting('Engineer', yearly(90_000, 110_000))).matched).toBe(true);
  });

  it('a $50 hourly minimum is not cut off from salaried or fixed-price jobs, only from lower hourly rates', () => {
    const s = subscriber({ hourly: usd(50) });
    expect(scorePosting(s, posting('Engineer', yearly(60_000, 70_000))).matched).toBe(true);
    expect(scorePosting(s, posting('Engineer', { amount: 300, currency: 'USD', kind: 'fixed' })).matched).toBe(true);
    expect(scorePosting(s, posting('Engineer', { amount: 30, maxAmount: 45, currency: 'USD', kind: 'hourly' }))).toMatchObject({
      matched: false,
      reason: 'pay $30.00–$45.00/hour below your $50/hour minimum',
    });
    expect(scorePosting(s, posting('Engineer', { amount: 55, currency: 'USD', kind: 'hourly' })).matched).toBe(true);
  });

  it('a fixed minimum compares fixed prices only', () => {
    const s = subscriber({ fixed: usd(1_000) });
    expect(scorePosting(s, posting('Engineer', { amount: 500, currency: 'USD', kind: 'fixed' }))).toMatchObject({
      matched: false,
      nearMiss: 'under_min_budget',
    });
    const met = scorePosting(s, posting('Engineer', { amount: 1_500, currency: 'USD', kind: 'fixed' }));
    expect(met.matched && met.reasons).toContain('pay $1,500 fixed meets your $1,000 fixed-price minimum');
    expect(scorePosting(s, posting('Engineer', { amount: 40, currency: 'USD', kind: 'hourly' })).matched).toBe(true);
  });

  it('daily and monthly pay have no minimum of their own and are never compared', () => {
    const s = subscriber({ yearly: usd(100_000), hourly: usd(50) });
    expect(scorePosting(s, posting('Engineer', { amount: 100, currency: 'USD', kind: 'daily' })).matched).toBe(true);
    expect(scorePosting(s, posting('Engineer', { amount: 1_000, currency: 'USD', kind: 'monthly' })).matched).toBe(true);
  });

  it('pay in another currency is kept, never converted, and its reasons say it was not compared', () => {
    const verdict = scorePosting(subscriber({ yearly: usd(100_000) }), posting('Engineer', yearly(40_000, 50_000, 'EUR')));
    expect(verdict.matched).toBe(true);
    expect(verdict.matched && verdict.reasons).toContain('pay in EUR not compared with your $100,000/year minimum');
  });

  it('pay without a stated currency is kept likewise, and said to be not compared', () => {
    const verdict = scorePosting(subscriber({ yearly: usd(100_000) }), posting('Engineer', yearly(150_000, 250_000, null)));
    expect(verdict.matched).toBe(true);
    expect(verdict.matched && verdict.reasons).toContain('pay with no stated currency not compared with your $100,000/year minimum');
  });

  it('a minimum in EUR compares EUR pay', () => {
    const s = subscriber({ yearly: { amount: 60_000, currency: 'EUR' } });
    expect(scorePosting(s, posting('Engineer', yearly(40_000, 50_000, 'EUR'))).matched).toBe(false);
    expect(scorePosting(s, posting('Engineer', yearly(150_000, 160_000, 'USD'))).matched).toBe(true);
  });
});
