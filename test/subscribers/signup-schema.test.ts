import { describe, expect, it } from 'vitest';
import { splitKeywordList } from '../../lib/subscribers/preference-fields';
import { formToSignupBody, parseSignup, signupActionOf } from '../../lib/subscribers/signup-schema';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';

const valid = { email: 'ada@example.com', keywords: 'react', mode: 'instant' };
const fieldsOf = (body: unknown) => {
  const result = parseSignup(body);
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.input)}`);
  return result.fields;
};
const inputOf = (body: unknown) => {
  const result = parseSignup(body);
  if (!result.ok) throw new Error(`expected a valid signup, got ${JSON.stringify(result.fields)}`);
  return result.input;
};

describe('parseSignup: what a valid signup becomes', () => {
  it('takes JSON lists and form text alike, normalised like stored keywords', () => {
    const fromJson = inputOf({ email: 'ada@example.com', keywords: ['React', ' Next.js ', 'react native'], mode: 'daily', minBudget: 500 });
    const fromForm = inputOf({
      email: 'ada@example.com',
      keywords: 'React,  Next.js\r\nreact   native\n',
      mode: 'daily',
      minBudget: '500',
    });
    const expected = {
      email: 'ada@example.com',
      keywords: ['react', 'next.js', 'react native'],
      excludes: [],
      // The lists as the query they are (lib/query/subscriber-query.ts).
      query: 'react OR next.js OR "react native"',
      minPay: { fixed: { amount: 500, currency: 'USD' }, hourly: null, yearly: null },
      mode: 'daily',
      about: '',
      timezone: 'UTC',
      digestHour: null,
      weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
      weeklyDay: 'mon',
    };
    expect(fromJson).toEqual(expected);
    expect(fromForm).toEqual(expected);
  });

  it('trims the email and drops empty and repeated keywords', () => {
    expect(inputOf({ ...valid, email: '  Ada@Example.COM \n', keywords: 'react,,React, ,\n\nvue' })).toMatchObject({
      email: 'Ada@Example.COM',
      keywords: ['react', 'vue'],
    });
  });

  it('defaults: no excludes, no minimum pay, nothing about them, and the schedule everyone had before schedules (08:00 UTC daily)', () => {
    expect(inputOf(valid)).toEqual({
      email: 'ada@example.com',
      keywords: ['react'],
      excludes: [],
      query: 'react',
      minPay: NO_MIN_PAY,
      mode: 'instant',
      about: '',
      timezone: 'UTC',
      digestHour: null,
      weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
      weeklyDay: 'mon',
    });
    expect(inputOf({ ...valid, about: null }).about).toBe('');
    expect(inputOf({ ...valid, about: ' \n\t ' }).about).toBe('');
    expect(inputOf({ ...valid, excludes: '', minBudget: '' })).toMatchObject({ excludes: [], minPay: NO_MIN_PAY, mode: 'instant' });
    expect(inputOf({ ...valid, excludes: null, minBudget: null })).toMatchObject({ excludes: [], minPay: NO_MIN_PAY });
  });

  it('reads the old minBudget as people type it, as a minimum fixed price in USD', () => {
    const fixedOf = (minBudget: unknown) => inputOf({ ...valid, minBudget }).minPay.fixed;
    expect(fixedOf('1,500')).toEqual({ amount: 1500, currency: 'USD' });
    expect(fixedOf(' $750 ')).toEqual({ amount: 750, currency: 'USD' });
    expect(fixedOf('0')).toEqual({ amount: 0, currency: 'USD' });
    expect(fixedOf(12.5)).toEqual({ amount: 12.5, currency: 'USD' });
  });

  it('reads the minimums per kind, each optional, in minCurrency unless the amount names its own', () => {
    expect(inputOf({ ...valid, minFixed: '$1,500', minHourly: '€45', minYearly: '150k', minCurrency: 'GBP' }).minPay).toEqual({
      fixed: { amount: 1500, currency: 'USD' },
      hourly: { amount: 45, currency: 'EUR' },
      yearly: { amount: 150_000, currency: 'GBP' },
    });
    expect(inputOf({ ...valid, minYearly: '$150K' }).minPay).toEqual({ ...NO_MIN_PAY, yearly: { amount: 150_000, currency: 'USD' } });
    expect(inputOf({ ...valid, minFixed: '', minHourly: '', minYearly: '', minCurrency: '' }).minPay).toEqual(NO_MIN_PAY);
  });

  it('takes exactly 25 keywords of 60 characters, and 25 excludes', () => {
    const many = Array.from({ length: 25 }, (_, i) => `${'k'.repeat(58)}${String(i).padStart(2, '0')}`);
    expect(inputOf({ ...valid, keywords: many, excludes: many.join('\n') })).toMatchObject({ keywords: many, excludes: many });
  });

  it('ignores fields it does not know', () => {
    expect(inputOf({ ...valid, status: 'active', confirmedAt: 'now' })).not.toHaveProperty('status');
  });
});

describe('parseSignup: one message per field', () => {
  it('a missing or malformed email', () => {
    expect(fieldsOf({ keywords: 'react', mode: 'instant' })).toEqual({ email: 'enter your email address' });
    expect(fieldsOf({ ...valid, email: '   ' })).toEqual({ email: 'enter your email address' });
    expect(fieldsOf({ ...valid, email: 'ada' })).toEqual({ email: 'must be an email address' });
    expect(fieldsOf({ ...valid, email: 'ada@example.com, bob@example.com' })).toEqual({ email: 'must be an email address' });
    expect(fieldsOf({ ...valid, email: ['ada@example.com'] })).toEqual({ email: 'must be text' });
    expect(fieldsOf({ ...valid, email: `${'a'.repeat(250)}@example.com` })).toEqual({ email: 'must be at most 254 characters' });
  });

  it('keywords: at least one, at most 25, each at most 60 characters, text or a list of text', () => {
    expect(fieldsOf({ ...valid, keywords: undefined })).toEqual({ keywords: 'enter at least one keyword' });
    expect(fieldsOf({ ...valid, keywords: ' , \n' })).toEqual({ keywords: 'enter at least one keyword' });
    expect(fieldsOf({ ...valid, keywords: [] })).toEqual({ keywords: 'enter at least one keyword' });
    expect(fieldsOf({ ...valid, keywords: Array.from({ length: 26 }, (_, i) => `k${i}`).join(',') })).toEqual({
      keywords: 'enter at most 25 keywords',
    });
    expect(fieldsOf({ ...valid, keywords: `react, ${'x'.repeat(61)}` })).toEqual({
      keywords: 'each keyword must be at most 60 characters',
    });
    expect(fieldsOf({ ...valid, keywords: [1, 2] })).toEqual({ keywords: expect.stringContaining('must be text') });
    expect(fieldsOf({ ...valid, keywords: { react: true } })).toEqual({ keywords: expect.stringContaining('must be text') });
  });

  it('excludes: optional, at most 25', () => {
    expect(fieldsOf({ ...valid, excludes: Array.from({ length: 26 }, (_, i) => `x${i}`) })).toEqual({
      excludes: 'enter at most 25 excludes',
    });
    expect(fieldsOf({ ...valid, excludes: 7 })).toEqual({ excludes: expect.stringContaining('must be text') });
  });

  it('minBudget: an amount, 0 or more, at most 10 million', () => {
    expect(fieldsOf({ ...valid, minBudget: 'lots' })).toEqual({ minBudget: 'must be an amount, like 500, $1,500 or 150k' });
    expect(fieldsOf({ ...valid, minBudget: -1 })).toEqual({ minBudget: 'must be 0 or more' });
    expect(fieldsOf({ ...valid, minBudget: '-5' })).toEqual({ minBudget: 'must be 0 or more' });
    expect(fieldsOf({ ...valid, minBudget: 20_000_000 })).toEqual({ minBudget: 'must be at most 10,000,000' });
    expect(fieldsOf({ ...valid, minBudget: true })).toEqual({ minBudget: 'must be an amount, like 500, $1,500 or 150k' });
  });

  it('minFixed, minHourly, minYearly and minCurrency: each its own message', () => {
    expect(fieldsOf({ ...valid, minFixed: 'lots', minHourly: -1, minYearly: '20M', minCurrency: 'dollars' })).toEqual({
      minFixed: 'must be an amount, like 500, $1,500 or 150k',
      minHourly: 'must be 0 or more',
      minYearly: 'must be at most 10,000,000',
      minCurrency: 'must be a currency code, like USD or EUR',
    });
  });

  it('mode is required: a signup without one is refused naming mode, never quietly made instant', () => {
    const { mode: _mode, ...withoutMode } = valid;
    expect(fieldsOf(withoutMode)).toEqual({ mode: 'choose instant, daily, weekly or feed' });
    expect(fieldsOf({ ...valid, mode: '' })).toEqual({ mode: 'choose instant, daily, weekly or feed' });
    expect(fieldsOf({ ...valid, mode: null })).toEqual({ mode: 'choose instant, daily, weekly or feed' });
  });

  it('mode: instant, daily, weekly or feed', () => {
    expect(inputOf({ ...valid, mode: 'daily' }).mode).toBe('daily');
    expect(inputOf({ ...valid, mode: 'weekly' }).mode).toBe('weekly');
    expect(inputOf({ ...valid, mode: 'feed' }).mode).toBe('feed');
    expect(fieldsOf({ ...valid, mode: 'hourly' })).toEqual({ mode: 'choose instant, daily, weekly or feed' });
    expect(fieldsOf({ ...valid, mode: 'Daily' })).toEqual({ mode: 'choose instant, daily, weekly or feed' });
  });

  it('several fields at once, each with its own message', () => {
    expect(fieldsOf({ email: 'nope', keywords: '', minBudget: 'x', mode: 'hourly' })).toEqual({
      email: 'must be an email address',
      keywords: 'enter at least one keyword',
      minBudget: 'must be an amount, like 500, $1,500 or 150k',
      mode: 'choose instant, daily, weekly or feed',
    });
  });

  it('a body that is not an object gets one message under `body`', () => {
    for (const body of [null, 'ada@example.com', 42, ['ada@example.com']]) {
      expect(Object.keys(fieldsOf(body))).toEqual(['body']);
    }
  });
});

const ALLOWED = "letters, digits, spaces and + # . - / & '";

describe("parseSignup: keywords and excludes hold only what a posting's words can match", () => {
  it('takes letters and digits in any script and the punctuation real skills use', () => {
    const words = [
      'разработчик',
      '開発',
      'हिन्दी',
      'العربية',
      'c++',
      'c#',
      'node.js',
      '.net',
      'ui/ux',
      'r&d',
      "o'reilly",
      'front-end',
      'react native',
      'web3',
    ];
    expect(inputOf({ ...valid, keywords: words, excludes: words.join('\n') })).toMatchObject({ keywords: words, excludes: words });
  });

  it('stores the composed form (NFC), so "é" typed as e + accent is the same keyword as "é"', () => {
    expect(inputOf({ ...valid, keywords: ['cafe\u0301', 'café'] }).keywords).toEqual(['café']);
  });

  it.each([
    ['<script>alert(1)</script>', '"<" is not allowed'],
    ['<img src=x onerror=alert(1)>', '"<" is not allowed'],
    ['react; drop table', '";" is not allowed'],
    ['rocket 🚀', '"🚀" is not allowed'],
    ['re\u200bact', 'U+200B, an invisible character, is not allowed'],
    ['re\u200dact', 'U+200D, an invisible character, is not allowed'],
    ['react\ufeff', 'U+FEFF, an invisible character, is not allowed'],
    ['\u2066react\u2069', 'U+2066, an invisible character, is not allowed'],
    ['soft\u00adhyphen', 'U+00AD, an invisible character, is not allowed'],
    ['\u3164react', 'U+3164, an invisible character, is not allowed'],
    ['react\ufe0f', 'U+FE0F, an invisible character, is not allowed'],
    ['nul\u0000byte', 'U+0000, a control character, is not allowed'],
    ['esc\u001b[31m', 'U+001B, a control character, is not allowed'],
    ['lone \ud800 half', 'U+D800, an unprintable character, is not allowed'],
  ])('refuses %j naming the field and what it allows: %s', (bad, shown) => {
    expect(fieldsOf({ ...valid, keywords: ['react', bad] })).toEqual({
      keywords: `each keyword may use only ${ALLOWED} (${shown})`,
    });
    expect(fieldsOf({ ...valid, excludes: `php, ${bad}` })).toEqual({
      excludes: `each exclude may use only ${ALLOWED} (${shown})`,
    });
  });

  it('refuses a keyword of punctuation only: it can never match a word', () => {
    expect(fieldsOf({ ...valid, keywords: 'react, ++' })).toEqual({
      keywords: 'each keyword needs a letter or digit: "++" can never match a posting\'s words',
    });
    expect(fieldsOf({ ...valid, excludes: "- / & '" })).toEqual({
      excludes: 'each exclude needs a letter or digit: "- / & \'" can never match a posting\'s words',
    });
  });

  it('tabs and other white space between words are one space, as before', () => {
    expect(inputOf({ ...valid, keywords: 'type\t script, react\u00a0native' }).keywords).toEqual(['type script', 'react native']);
  });
});

describe('formToSignupBody / splitKeywordList', () => {
  it('one string per field, a list when a field repeats', () => {
    expect(formToSignupBody(new URLSearchParams('email=ada%40example.com&keywords=react&keywords=vue&mode=daily'))).toEqual({
      email: 'ada@example.com',
      keywords: ['react', 'vue'],
      mode: 'daily',
    });
  });

  it('splits on commas and new lines, including inside list items', () => {
    expect(splitKeywordList(['React, Vue', 'Go\nRust', '  '])).toEqual(['react', 'vue', 'go', 'rust']);
  });
});

describe('parseSignup: the address confirmed after a suggestion', () => {
  it('confirmedEmail replaces email and says so; blank or absent is not a confirmation', () => {
    const confirmed = parseSignup({ ...valid, email: 'ada@gmial.con', confirmedEmail: ' ada@gmail.com ' });
    expect(confirmed).toMatchObject({ ok: true, emailConfirmed: true, input: { email: 'ada@gmail.com' } });
    for (const confirmedEmail of [undefined, '', '   ', 42])
      expect(parseSignup({ ...valid, confirmedEmail })).toMatchObject({ ok: true, emailConfirmed: false, input: { email: valid.email } });
  });

  it('is validated as email is, its error under email', () => {
    expect(fieldsOf({ ...valid, confirmedEmail: 'nope' })).toEqual({ email: 'must be an email address' });
  });
});

describe('signupActionOf', () => {
  it('signup when absent or blank; resend and change as named; anything else is refused (null)', () => {
    expect([{}, { action: '' }, { action: null }, 'text'].map(signupActionOf)).toEqual(['signup', 'signup', 'signup', 'signup']);
    expect(signupActionOf({ action: 'resend' })).toBe('resend');
    expect(signupActionOf({ action: 'change' })).toBe('change');
    expect(signupActionOf({ action: 'delete' })).toBeNull();
    expect(signupActionOf({ action: ['resend', 'resend'] })).toBeNull();
  });
});
