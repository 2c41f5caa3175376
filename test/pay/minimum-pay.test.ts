import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { minPayInputShape, minPayOfInput, NO_MIN_PAY, readMinPay, readMoneyText } from '../../lib/pay/minimum-pay';

const inputSchema = z.object(minPayInputShape);
const minPayOf = (body: Record<string, unknown>) => minPayOfInput(inputSchema.parse(body));

describe('money as a subscriber types it', () => {
  it.each([
    ['1500', { amount: 1500, currency: null }],
    ['$1,500', { amount: 1500, currency: null, sign: 'dollar' }],
    ['€45', { amount: 45, currency: 'EUR' }],
    ['45 EUR', { amount: 45, currency: 'EUR' }],
    ['gbp 60k', { amount: 60_000, currency: 'GBP' }],
    ['150k', { amount: 150_000, currency: null }],
    ['$150K', { amount: 150_000, currency: null, sign: 'dollar' }],
    ['1.2M', { amount: 1_200_000, currency: null }],
    ['45.50', { amount: 45.5, currency: null }],
  ])('%s', (text, expected) => {
    expect(readMoneyText(text)).toEqual(expected);
  });

  it.each(['lots', '1,50', '$', '12 apples', '10-20'])('refuses %s', (text) => {
    expect(readMoneyText(text)).toBeNull();
  });
});

describe('the minimums an input asks for', () => {
  it('each kind optional, in minCurrency (USD by default), a sign in the text winning over it', () => {
    expect(minPayOf({ minYearly: '150k' })).toEqual({ ...NO_MIN_PAY, yearly: { amount: 150_000, currency: 'USD' } });
    expect(minPayOf({ minHourly: 45, minCurrency: 'eur' })).toEqual({ ...NO_MIN_PAY, hourly: { amount: 45, currency: 'EUR' } });
    expect(minPayOf({ minFixed: '£500', minYearly: '60000', minCurrency: 'EUR' })).toEqual({
      fixed: { amount: 500, currency: 'GBP' },
      hourly: null,
      yearly: { amount: 60_000, currency: 'EUR' },
    });
    // A bare $ is the chosen currency's dollar when it is one, the US dollar otherwise.
    expect(minPayOf({ minFixed: '$500', minCurrency: 'CAD' }).fixed).toEqual({ amount: 500, currency: 'CAD' });
    expect(minPayOf({ minFixed: '$500', minCurrency: 'EUR' }).fixed).toEqual({ amount: 500, currency: 'USD' });
    expect(minPayOf({ minFixed: '', minHourly: '  ', minYearly: null })).toEqual(NO_MIN_PAY);
  });

  it('the old minBudget is still accepted, as a minimum fixed price in USD; minFixed wins when both are sent', () => {
    expect(minPayOf({ minBudget: '$1,500', minCurrency: 'EUR' })).toEqual({ ...NO_MIN_PAY, fixed: { amount: 1500, currency: 'USD' } });
    expect(minPayOf({ minBudget: 500 })).toEqual({ ...NO_MIN_PAY, fixed: { amount: 500, currency: 'USD' } });
    expect(minPayOf({ minBudget: 500, minFixed: 800 }).fixed).toEqual({ amount: 800, currency: 'USD' });
  });

  it('refuses what is not an amount, a negative or an absurd one, and an unknown currency, naming the field', () => {
    const fieldOf = (body: Record<string, unknown>) => inputSchema.safeParse(body).error?.issues[0];
    expect(fieldOf({ minHourly: 'lots' })).toMatchObject({ path: ['minHourly'], message: 'must be an amount, like 500, $1,500 or 150k' });
    expect(fieldOf({ minFixed: -1 })).toMatchObject({ path: ['minFixed', 'amount'], message: 'must be 0 or more' });
    expect(fieldOf({ minYearly: '20M' })?.path[0]).toBe('minYearly');
    expect(fieldOf({ minCurrency: 'XYZ1' })).toMatchObject({ path: ['minCurrency'], message: 'must be a currency code, like USD or EUR' });
  });
});

describe('the minimums a stored subscriber holds', () => {
  it('minPay as stored; an unmigrated minBudget as the fixed minimum in USD; nothing as none', () => {
    const minPay = { fixed: null, hourly: { amount: 50, currency: 'USD' }, yearly: null };
    expect(readMinPay({ minPay })).toEqual(minPay);
    expect(readMinPay({ minBudget: 500 })).toEqual({ ...NO_MIN_PAY, fixed: { amount: 500, currency: 'USD' } });
    expect(readMinPay({ minBudget: null })).toEqual(NO_MIN_PAY);
    expect(readMinPay({})).toEqual(NO_MIN_PAY);
    // minPay is what the current code wrote: a stale minBudget beside it says nothing more.
    expect(readMinPay({ minPay, minBudget: 500 })).toEqual(minPay);
    expect(readMinPay({ minPay: { hourly: { amount: 'x', currency: 'USD' } } })).toEqual(NO_MIN_PAY);
  });
});
