import { FieldValue } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import type { Budget } from '../../lib/pay/pay';
import type { Posting } from '../../lib/feeds/posting';
import { MAX_SIGHTINGS, REPOST_AFTER_DAYS, sightingOf, sightingUpdate } from '../../lib/feeds/posting-sightings';
import type { Sighting, StoredPosting } from '../../lib/feeds/postings-collection';
import { DAY_MS } from '../../lib/store/timestamps';

/**
 * What a copy of a job changes on its canonical posting, as a table. No emulator: the decision is
 * pure; test/feeds/dedup.emulator.test.ts checks that storePosting writes it guarded.
 */

const NOW = new Date('2026-03-10T09:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY_MS);
const EXPIRE = new Date('2026-04-10T09:00:00Z');
const usd = (amount: number): Budget => ({ amount, currency: 'USD', kind: 'fixed' });

const seen = (source: string, seenAt: Date, label = source): Sighting => ({ source, label, url: `https://${source}.example/1`, seenAt });

const canonical = (over: Partial<StoredPosting> = {}): StoredPosting => ({
  id: 'board-a_1',
  source: 'board-a',
  guid: null,
  title: 'Rust engineer',
  url: 'https://board-a.example/1',
  description: '',
  budget: usd(5_000),
  skills: [],
  publishedAt: ago(1),
  matchState: 'matched',
  runId: 'run-0',
  fetchedAt: ago(1),
  expireAt: EXPIRE,
  canonicalId: 'board-a_1',
  revision: 0,
  firstSeenAt: ago(1),
  sightings: [seen('board-a', ago(1))],
  ...over,
});

const copy = (source: string, over: Partial<Posting> = {}): Posting => ({
  id: `${source}_1`,
  source,
  guid: null,
  title: 'Rust engineer',
  url: `https://${source}.example/1`,
  description: '',
  budget: null,
  skills: [],
  publishedAt: NOW,
  ...over,
});

const update = (stored: StoredPosting, posting: Posting, label = posting.source) =>
  sightingUpdate(stored, posting, sightingOf(posting, { now: NOW, label }), { now: NOW, expireAt: EXPIRE });

const sources = (u: ReturnType<typeof update>) => (u.sightings as { source: string }[]).map((s) => s.source);

describe('sightingUpdate: what a copy changes on its canonical posting', () => {
  it('another board listing the same job joins the sightings, and nothing reopens', () => {
    const u = update(canonical(), copy('board-b'));
    expect(sources(u)).toEqual(['board-a', 'board-b']);
    expect(u.matchState).toBeUndefined();
  });

  it(`the sightings stay at MAX_SIGHTINGS (${MAX_SIGHTINGS}): the document never grows with the data`, () => {
    const full = Array.from({ length: MAX_SIGHTINGS }, (_, i) => seen(`board-${i}`, ago(1)));
    expect(sources(update(canonical({ sightings: full }), copy('board-new')))).toHaveLength(MAX_SIGHTINGS);
  });

  it('a source seen before keeps its place and its label, its entry pointing at the newer listing', () => {
    const stored = canonical({ sightings: [seen('board-a', ago(1)), seen('board-b', ago(1), 'Board B')] });
    const u = update(stored, copy('board-b', { url: 'https://board-b.example/2' }), 'renamed');
    expect(u.sightings).toEqual([
      expect.objectContaining({ source: 'board-a' }),
      expect.objectContaining({ source: 'board-b', label: 'Board B', url: 'https://board-b.example/2' }),
    ]);
  });

  it('the same source listing it twice in one fetch is one listing, not a repost', () => {
    const stored = canonical({ sightings: [seen('board-a', ago(1)), seen('board-b', NOW)] });
    expect(update(stored, copy('board-b')).matchState).toBeUndefined();
  });

  it('a source that listed it before lists it again: a repost, matching reopens on the new listing', () => {
    const stored = canonical({ sightings: [seen('board-a', ago(1)), seen('board-b', ago(1))] });
    const u = update(stored, copy('board-b'));
    expect(u).toMatchObject({ matchState: 'pending', repostedAt: NOW, publishedAt: NOW, url: 'https://board-b.example/1' });
    expect(u.revision).toEqual(FieldValue.increment(1));
    expect(u.matchedShards).toEqual(FieldValue.delete());
  });

  it(`a copy seen REPOST_AFTER_DAYS (${REPOST_AFTER_DAYS}) after the job was first seen is a repost, whatever its source`, () => {
    expect(update(canonical({ firstSeenAt: ago(REPOST_AFTER_DAYS) }), copy('board-b')).matchState).toBe('pending');
    expect(update(canonical({ firstSeenAt: ago(REPOST_AFTER_DAYS - 0.01) }), copy('board-b')).matchState).toBeUndefined();
  });

  it('a changed budget reopens matching and keeps the one before, so subscribers it now fits are reached', () => {
    const u = update(canonical(), copy('board-b', { budget: usd(9_000) }));
    expect(u).toMatchObject({ matchState: 'pending', budget: usd(9_000), previousBudget: usd(5_000) });
    expect(u.repostedAt).toBeUndefined();
  });

  it('the same budget, or none stated, changes nothing about matching', () => {
    expect(update(canonical(), copy('board-b', { budget: usd(5_000) })).matchState).toBeUndefined();
    expect(update(canonical(), copy('board-b', { budget: null })).matchState).toBeUndefined();
  });

  it('a reopened posting is kept at least as long as a new one would be, never less than it had', () => {
    const later = new Date(EXPIRE.getTime() + DAY_MS);
    expect(update(canonical({ firstSeenAt: ago(5), expireAt: ago(0) }), copy('board-b')).expireAt).toEqual(EXPIRE);
    expect(update(canonical({ firstSeenAt: ago(5), expireAt: later }), copy('board-b')).expireAt).toEqual(later);
  });

  it('a posting stored before dedup gets its own sighting rebuilt first', () => {
    expect(sources(update(canonical({ sightings: undefined }), copy('board-b')))).toEqual(['board-a', 'board-b']);
  });
});

describe('sightingOf: a listing as a card names it', () => {
  it('a label is capped: sightings live on one document', () => {
    expect(sightingOf(copy('board-b'), { now: NOW, label: 'x'.repeat(500) }).label).toHaveLength(100);
  });
});
