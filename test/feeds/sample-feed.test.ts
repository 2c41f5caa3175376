import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../lib/feeds/parse-feed';
import { readSampleFeed } from '../../scripts/sample-feed/server';

describe('the bundled sample feed', () => {
  it('holds 24 varied, complete postings from the early hours of 2026-11-30 UTC', async () => {
    const postings = parseFeed(await readSampleFeed(), { source: 'sample', baseUrl: 'http://127.0.0.1:3030/sample.xml' });
    expect(postings).toHaveLength(24);
    expect(new Set(postings.map((p) => p.id)).size).toBe(24);
    for (const posting of postings) {
      expect(posting.publishedAt!.getTime()).toBeGreaterThanOrEqual(Date.parse('2026-11-30T00:00:00Z'));
      expect(posting.publishedAt!.getTime()).toBeLessThan(Date.parse('2026-11-30T06:00:00Z'));
      expect(posting.url).toMatch(/^https:\/\/jobs\.example\.com\/jobs\//);
      expect(posting.guid).not.toBeNull();
      expect(posting.skills.length).toBeGreaterThanOrEqual(3);
    }
    const budgets = postings.map((p) => p.budget);
    expect(budgets.filter((b) => b?.kind === 'hourly').length).toBeGreaterThanOrEqual(8);
    expect(budgets.filter((b) => b?.kind === 'fixed').length).toBeGreaterThanOrEqual(12);
    expect(budgets.some((b) => b?.currency === 'EUR')).toBe(true);
    expect(budgets.filter((b) => b === null)).toHaveLength(1);
  });
});
