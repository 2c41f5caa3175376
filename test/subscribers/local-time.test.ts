import { describe, expect, it } from 'vitest';
import { formatLocalDay, formatLocalMinute } from '../../lib/subscribers/local-time';

describe('instants as a subscriber reads them', () => {
  const at = new Date('2026-11-29T23:30:00Z');

  it('are written in their zone and name it, and the day is the day it was there', () => {
    expect(formatLocalMinute(at, 'UTC')).toBe('29 Nov 2026, 23:30 UTC');
    expect(formatLocalMinute(at, 'Europe/Berlin')).toBe('30 Nov 2026, 00:30 CET');
    expect(formatLocalMinute(at, 'Asia/Kolkata')).toBe('30 Nov 2026, 05:00 GMT+5:30');
    expect(formatLocalDay(at, 'America/New_York')).toBe('29 Nov 2026');
    expect(formatLocalDay(at, 'Europe/Berlin')).toBe('30 Nov 2026');
  });

  it('a zone this runtime does not know reads as UTC and says so, rather than failing the page', () => {
    expect(formatLocalMinute(at, 'Mars/Olympus_Mons')).toBe('29 Nov 2026, 23:30 UTC');
  });
});
