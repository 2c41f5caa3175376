import { describe, expect, it } from 'vitest';
import { sinceWhen, sourcesCheckedLine } from '../../lib/mail/sources-checked';

// A Wednesday.
const NOW = new Date('2026-12-02T08:00:00Z');
const coverage = (over: Partial<Parameters<typeof sourcesCheckedLine>[0] & object> = {}) => ({
  postings: 412,
  sources: 6,
  unreachable: 0,
  unreachableSince: null,
  ...over,
});

describe('the digest footer says what was checked and what was down', () => {
  it('all sources answering: how many postings from how many sources', () => {
    expect(sourcesCheckedLine(coverage(), NOW)).toBe('Checked 412 postings from 6 sources.');
  });

  it('one source unreachable since a weekday of this week', () => {
    const line = sourcesCheckedLine(coverage({ unreachable: 1, unreachableSince: new Date('2026-12-01T06:15:00Z') }), NOW);
    expect(line).toBe('Checked 412 postings from 6 sources; 1 source unreachable since Tuesday.');
  });

  it('several unreachable: counted, since the first of them failed', () => {
    const line = sourcesCheckedLine(coverage({ unreachable: 2, unreachableSince: new Date('2026-11-28T23:59:00Z') }), NOW);
    expect(line).toBe('Checked 412 postings from 6 sources; 2 sources unreachable since Saturday.');
  });

  it('the day names the digest day for today, a weekday up to six days back, a date before that', () => {
    expect(sinceWhen(new Date('2026-12-02T07:45:00Z'), NOW)).toBe('today');
    expect(sinceWhen(new Date('2026-11-26T00:00:00Z'), NOW)).toBe('Thursday');
    expect(sinceWhen(new Date('2026-11-25T23:59:59Z'), NOW)).toBe('25 November');
  });

  it('singulars and thousands read as words', () => {
    expect(sourcesCheckedLine(coverage({ postings: 1, sources: 1 }), NOW)).toBe('Checked 1 posting from 1 source.');
    expect(sourcesCheckedLine(coverage({ postings: 12_345, sources: 2 }), NOW)).toBe('Checked 12,345 postings from 2 sources.');
  });

  it('says nothing when no source was asked lately, or the read failed', () => {
    expect(sourcesCheckedLine(coverage({ sources: 0, postings: 0 }), NOW)).toBeNull();
    expect(sourcesCheckedLine(null, NOW)).toBeNull();
  });
});

describe('the days are the subscriber’s', () => {
  it('an outage that began late on Tuesday by UTC began on Wednesday in Berlin: “today” there', () => {
    const since = new Date('2026-12-01T23:30:00Z');
    expect(sinceWhen(since, NOW)).toBe('Tuesday');
    expect(sinceWhen(since, NOW, 'Europe/Berlin')).toBe('today');
    expect(sourcesCheckedLine(coverage({ unreachable: 1, unreachableSince: since }), NOW, 'Europe/Berlin')).toBe(
      'Checked 412 postings from 6 sources; 1 source unreachable since today.',
    );
  });

  it('no zone, or one the runtime does not know: UTC', () => {
    const since = new Date('2026-12-01T23:30:00Z');
    expect(sinceWhen(since, NOW, null)).toBe('Tuesday');
    expect(sinceWhen(since, NOW, 'Mars/Olympus_Mons')).toBe('Tuesday');
  });
});
