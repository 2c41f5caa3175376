import { describe, expect, it } from 'vitest';
import { parseHiringLine } from '../../../lib/feeds/adapters/hn-first-line';

describe('parseHiringLine: the "Company | Role | Location | REMOTE | Salary" convention in any order', () => {
  it.each([
    [
      'Acme Robotics | Senior Backend Engineer | Berlin, Germany | REMOTE (EU) | €85k–€105k | Full-time',
      {
        company: 'Acme Robotics',
        role: 'Senior Backend Engineer',
        location: 'Berlin, Germany · REMOTE (EU)',
        remote: true,
        budget: { amount: 85_000, maxAmount: 105_000, currency: 'EUR', kind: 'yearly' },
        tags: ['Full-time'],
      },
    ],
    [
      'Northwind Health | Staff Frontend Engineer (React & TypeScript) | New York, NY | ONSITE | $180,000 – $220,000 + equity | https://northwind.example/careers?utm_source=hn',
      {
        company: 'Northwind Health',
        role: 'Staff Frontend Engineer (React & TypeScript)',
        location: 'New York, NY',
        remote: false,
        budget: { amount: 180_000, maxAmount: 220_000, currency: 'USD', kind: 'yearly' },
        tags: [],
      },
    ],
    [
      'Lumen Labs (YC W24) | Founding ML Engineer, Data Engineer | San Francisco or REMOTE (US) | Full-time',
      {
        company: 'Lumen Labs',
        role: 'Founding ML Engineer, Data Engineer',
        location: 'San Francisco or REMOTE (US)',
        remote: true,
        budget: null,
        tags: ['YC W24', 'Full-time'],
      },
    ],
    [
      'Fieldnote | Contract iOS Developer (SwiftUI) | REMOTE | $90-$120/hr | 3-month contract, likely extension',
      {
        company: 'Fieldnote',
        role: 'Contract iOS Developer (SwiftUI)',
        location: null,
        remote: true,
        budget: { amount: 90, maxAmount: 120, currency: 'USD', kind: 'hourly' },
        tags: ['Contract'],
      },
    ],
    [
      'Tidewater Energy — Platform Engineer — Oslo, Norway — Hybrid (2 days onsite) — NOK 850k–1M',
      {
        company: 'Tidewater Energy',
        role: 'Platform Engineer',
        location: 'Oslo, Norway · Hybrid (2 days onsite)',
        remote: false,
        budget: { amount: 850_000, maxAmount: 1_000_000, currency: 'NOK', kind: 'yearly' },
        tags: [],
      },
    ],
  ])('reads the fixture line %s', (line, expected) => {
    expect(parseHiringLine(line)).toEqual(expected);
  });

  it('finds the role and the place whatever order they come in', () => {
    expect(parseHiringLine('Stripe | London, UK | Backend Engineer | Onsite | £90k-£120k')).toMatchObject({
      company: 'Stripe',
      role: 'Backend Engineer',
      location: 'London, UK',
      remote: false,
      budget: { amount: 90_000, maxAmount: 120_000, currency: 'GBP', kind: 'yearly' },
    });
    expect(parseHiringLine('Ramp | NYC | Full-time | Software Engineer, Product Engineer | $170k-$250k | REMOTE (US)')).toMatchObject({
      role: 'Software Engineer, Product Engineer',
      location: 'NYC · REMOTE (US)',
      remote: true,
      tags: ['Full-time'],
    });
    expect(parseHiringLine('Oxide Computer Company | Emeryville, CA | Remote (US) | Multiple roles | $201,227')).toMatchObject({
      role: 'Multiple roles',
      location: 'Emeryville, CA · Remote (US)',
      budget: { amount: 201_227, currency: 'USD', kind: 'yearly' },
    });
  });

  it('reads the arrangement: REMOTE is remote, ONSITE and hybrid are not, a line saying neither is unknown', () => {
    expect(parseHiringLine('Acme | Engineer | REMOTE')?.remote).toBe(true);
    expect(parseHiringLine('Acme | Engineer | Remote-first')?.remote).toBe(true);
    expect(parseHiringLine('Acme | Engineer | Paris | On-site')?.remote).toBe(false);
    expect(parseHiringLine('Acme | Engineer | Paris | Hybrid')?.remote).toBe(false);
    expect(parseHiringLine('Acme | Engineer | Paris, France | No remote')?.remote).toBe(false);
    expect(parseHiringLine('Acme | Engineer | Remote or Onsite (NYC)')).toMatchObject({ remote: true, location: 'Remote or Onsite (NYC)' });
    expect(parseHiringLine('Acme | Engineer | Paris')).toMatchObject({ remote: null, location: 'Paris' });
  });

  it('takes where and how the job is worked out of a parenthesis closing the company name', () => {
    expect(parseHiringLine('PrairieLearn (Remote US) | Software Engineer | Full-time')).toMatchObject({
      company: 'PrairieLearn',
      role: 'Software Engineer',
      location: 'US',
      remote: true,
    });
    expect(parseHiringLine('Acme (Onsite, Berlin) | Engineer')).toMatchObject({ company: 'Acme', location: 'Berlin', remote: false });
    expect(parseHiringLine('Acme (Remote) | Engineer')).toMatchObject({ company: 'Acme', location: null, remote: true });
    expect(parseHiringLine('Acme (NYC) | Engineer | Hybrid')).toMatchObject({ company: 'Acme', location: 'NYC', remote: false });
    // A parenthesis that says nothing of place or arrangement stays with the name.
    expect(parseHiringLine('Acme (formerly Initech) | Engineer')).toMatchObject({ company: 'Acme (formerly Initech)', remote: null });
  });

  it('reads salaries in their currencies and periods, and leaves a line without one at null', () => {
    expect(parseHiringLine('Acme | Engineer | Remote | €70-90/h')?.budget).toEqual({
      amount: 70,
      maxAmount: 90,
      currency: 'EUR',
      kind: 'hourly',
    });
    expect(parseHiringLine('Acme | Engineer | Remote | USD 140k–180k')?.budget).toEqual({
      amount: 140_000,
      maxAmount: 180_000,
      currency: 'USD',
      kind: 'yearly',
    });
    expect(parseHiringLine('Acme | Engineer | Remote | Competitive salary + equity')?.budget).toBeNull();
  });

  it('keeps a salary that names no currency as a number of unknown currency, never guessed', () => {
    expect(parseHiringLine('Acme | Senior Engineer | SF | ONSITE | 150-250k+ | Full-time')).toMatchObject({
      role: 'Senior Engineer',
      budget: { amount: 150_000, maxAmount: 250_000, currency: null, kind: 'yearly' },
    });
  });

  it('keeps employment terms and the YC batch as tags, skips links and addresses', () => {
    expect(
      parseHiringLine('Pylon (YC S22) | Founding Engineer | SF | Full-time / Contract | jobs@pylon.example | https://pylon.example'),
    ).toEqual({
      company: 'Pylon',
      role: 'Founding Engineer',
      location: 'SF',
      remote: null,
      budget: null,
      tags: ['YC S22', 'Full-time / Contract'],
    });
  });

  it.each([
    ["Hiring at Quillcraft! We're a small team building tools for literary translators, and we're looking for a product designer."],
    ['We are hiring engineers in Berlin — come say hi'],
    ['Acme Robotics'],
    [''],
    ['Our company is growing fast and we need help across the board, so please reach out. | Engineer'],
    [`Acme | ${'Engineer '.repeat(60)}`],
  ])('a line that does not follow the convention is not read as one: %j', (line) => {
    expect(parseHiringLine(line)).toBeNull();
  });
});
