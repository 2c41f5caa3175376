import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeProfile, encodeProfile, entryFor, shardsToRead, type IndexedSubscriber } from '../../lib/subscribers/match-index';
import {
  DEFAULT_MATCH_INDEX_SHARDS,
  MAX_INLINE_ENTRY_BYTES,
  MAX_UID_LENGTH,
  matchIndexCapacity,
  matchIndexShardsFor,
  shardsOfLayout,
  WORST_SUBSCRIBER_BYTES,
} from '../../lib/subscribers/match-index-layout';
import { configSchema } from '../../lib/runtime/config';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';
import { documentSize, FIRESTORE_LIMITS, indexEntries, type IndexConfig } from '../../lib/store/firestore-limits';

const profile = (over: Partial<IndexedSubscriber> = {}): IndexedSubscriber => ({
  id: subscriberId('ada@example.com'),
  email: 'ada@example.com',
  keywords: ['react', 'next.js'],
  excludes: ['php'],
  minPay: { fixed: { amount: 500, currency: 'USD' }, hourly: null, yearly: null },
  mode: 'instant',
  profileVersion: 3,
  fitThreshold: 60,
  status: 'active',
  timezone: 'UTC',
  digestHour: null,
  weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  weeklyDay: 'mon',
  feedTokenVersion: 0,
  linkVersion: 0,
  ...over,
});

describe('an index entry', () => {
  it('reads back as the profile it was made from, schedule and versions included', () => {
    for (const p of [
      profile(),
      profile({
        mode: 'weekly',
        timezone: 'Australia/Lord_Howe',
        digestHour: 2,
        weekdays: ['mon', 'fri'],
        weeklyDay: 'thu',
        feedTokenVersion: 7,
        linkVersion: 2,
      }),
      profile({ email: 'Ada@Example.com', linkVersion: 5 }),
      profile({ mode: 'daily', minPay: NO_MIN_PAY, excludes: [], keywords: ['“quoted”', 'ünïcode', 'c++'] }),
      profile({ mode: 'feed', fitThreshold: 0 }),
    ])
      expect(decodeProfile(p.id, encodeProfile(p))).toEqual(p);
  });

  it('packs a fixed minimum in USD, or none, as the code before per-kind minimums did, so its instances read the entry as before', () => {
    expect(JSON.parse(encodeProfile(profile()))).toEqual([1, ['react', 'next.js'], ['php'], 500, 'i', 3, 60]);
    expect(JSON.parse(encodeProfile(profile({ minPay: NO_MIN_PAY })))[3]).toBeNull();
    // An entry that code wrote reads as the same minimum.
    expect(decodeProfile(profile().id, JSON.stringify([1, ['react'], [], 750, 'i', 1, 60]))?.minPay).toEqual({
      ...NO_MIN_PAY,
      fixed: { amount: 750, currency: 'USD' },
    });
  });

  it('packs any other minimums as format 2, every kind with its currency, which that code reads as "read users/"', () => {
    const minPay = { fixed: null, hourly: { amount: 45.5, currency: 'EUR' }, yearly: { amount: 100_000, currency: 'USD' } };
    const p = profile({ minPay });
    const fields = JSON.parse(encodeProfile(p)) as unknown[];
    expect(fields[0]).toBe(2);
    expect(fields[3]).toEqual([null, [45.5, 'EUR'], [100_000, 'USD']]);
    expect(decodeProfile(p.id, encodeProfile(p))).toEqual(p);
    expect(
      decodeProfile(p.id, encodeProfile(profile({ minPay: { ...NO_MIN_PAY, fixed: { amount: 500, currency: 'EUR' } } })))?.minPay.fixed,
    ).toEqual({
      amount: 500,
      currency: 'EUR',
    });
  });

  it('a keyword subscription with its canonical query stored is packed as before: the query is its keyword lists', () => {
    const migrated = profile({ query: 'react OR next.js -php' });
    expect(encodeProfile(migrated)).toBe(encodeProfile(profile()));
    expect(decodeProfile(migrated.id, encodeProfile(migrated))).toEqual(profile());
  });

  it('a written query is format 3: its text in place of the lists, which read back as what the simple form shows of it', () => {
    const written = profile({
      query: 'title:(react OR vue) remote:yes -wordpress rate>=60',
      keywords: ['react', 'vue'],
      excludes: ['wordpress'],
    });
    const fields = JSON.parse(encodeProfile(written)) as unknown[];
    expect(fields.slice(0, 3)).toEqual([3, written.query, null]);
    expect(decodeProfile(written.id, encodeProfile(written))).toEqual(written);
    // Its text no longer parses (a corrupt entry): a pointer to users/, never a guess.
    const broken = JSON.stringify([3, 'react (vue', null, ...fields.slice(3)]);
    expect(decodeProfile(written.id, broken)).toBeNull();
  });

  it('leaves out the address the uid already spells, and keeps one it does not', () => {
    expect(encodeProfile(profile())).not.toContain('ada@example.com');
    // Stored before addresses were normalised: the uid is of the lowercase address, the document keeps the case.
    const odd = profile({ email: 'Ada@Example.com' });
    expect(subscriberId(odd.email)).toBe(odd.id);
    expect(decodeProfile(odd.id, encodeProfile(odd))?.email).toBe('Ada@Example.com');
  });

  it('an entry this code cannot read, or one naming another address, is a pointer to users/ (null), never a guess', () => {
    const p = profile({ feedTokenVersion: 1 });
    expect(decodeProfile(p.id, '[3,"a future format"]')).toBeNull();
    expect(decodeProfile(p.id, JSON.stringify([2, ['react'], [], [[500, 'US Dollars'], null, null], 'i', 1, 60]))).toBeNull();
    expect(decodeProfile(p.id, 'not json')).toBeNull();
    expect(decodeProfile(p.id, JSON.stringify([...JSON.parse(encodeProfile(p)), 'eve@example.com']))).toBeNull();
  });

  it('an entry written before link versions (the address after the feed version) reads as link version 0', () => {
    const odd = profile({ email: 'Ada@Example.com' });
    const before = JSON.stringify([1, ['react'], [], 500, 'i', 3, 60, 'UTC', null, 127, 0, 1, 'Ada@Example.com']);
    expect(decodeProfile(odd.id, before)).toMatchObject({ email: 'Ada@Example.com', feedTokenVersion: 1, linkVersion: 0 });
    expect(decodeProfile(odd.id, JSON.stringify([1, ['react'], [], 500, 'i', 3, 60]))?.linkVersion).toBe(0);
  });

  it('exists only for an active subscriber', () => {
    expect(entryFor(profile())).toBe(encodeProfile(profile()));
    for (const status of ['pending', 'paused', 'unsubscribed'] as const) expect(entryFor(profile({ status }))).toBeUndefined();
  });

  it('is a pointer (null) past MAX_INLINE_ENTRY_BYTES, so a long profile costs a read instead of a shard’s room', () => {
    const long = profile({ keywords: Array.from({ length: 25 }, (_, i) => `a rather long keyword phrase ${i}`) });
    expect(Buffer.byteLength(encodeProfile(long))).toBeGreaterThan(MAX_INLINE_ENTRY_BYTES);
    expect(entryFor(long)).toBeNull();
  });

  it('counts the bound in UTF-8 bytes, not characters: a profile in wide script under the length is a pointer past the bytes', () => {
    const wide = profile({ keywords: ['\u4e00'.repeat(60), '\u4e8c'.repeat(60)] });
    expect(encodeProfile(wide).length).toBeLessThan(MAX_INLINE_ENTRY_BYTES);
    expect(Buffer.byteLength(encodeProfile(wide))).toBeGreaterThan(MAX_INLINE_ENTRY_BYTES);
    expect(entryFor(wide)).toBeNull();
  });
});

describe('a shard document, against production’s limits (the emulator enforces neither)', () => {
  const config = JSON.parse(readFileSync(new URL('../../firestore.indexes.json', import.meta.url), 'utf8')) as IndexConfig;
  const shardOf = (entries: number, entry: (i: number) => string | null) => {
    const profiles: Record<string, string | null> = {};
    for (let i = 0; i < entries; i++) profiles[subscriberId(`subscriber-${i}@example.com`)] = entry(i);
    return { profiles, builtAt: new Date() };
  };

  it('100,000 subscribers with typical profiles over 16 shards: each shard under 60% of 1 MiB', () => {
    // 6,250 a shard on average; the hash spreads them within a few percent, 6,600 covers it.
    const typical = (i: number) =>
      entryFor(profile({ id: subscriberId(`subscriber-${i}@example.com`), email: `subscriber-${i}@example.com` }))!;
    const bytes = documentSize('matchIndex', '0-of-16', shardOf(6_600, typical));
    expect(bytes / FIRESTORE_LIMITS.documentBytes).toBeLessThan(0.6);
  });

  it('the worst case, every entry at the inline cap, holds 2,500 subscribers a shard (40,000 over 16) under 1 MiB', () => {
    const worst = () => 'x'.repeat(MAX_INLINE_ENTRY_BYTES);
    expect(documentSize('matchIndex', '0-of-16', shardOf(2_500, worst))).toBeLessThan(FIRESTORE_LIMITS.documentBytes);
  });

  it('costs a few index entries however many subscribers it holds: `profiles` is exempt', () => {
    const entries = indexEntries(
      'matchIndex',
      shardOf(6_600, () => '[1]'),
      config,
    );
    expect(entries).toBeLessThan(10);
    expect(entries).toBeLessThan(FIRESTORE_LIMITS.indexEntries);
  });
});

describe('which shards a run reads', () => {
  it('all of them unsharded; only its own when its shard count divides K; all of them otherwise', () => {
    expect(shardsToRead(undefined, DEFAULT_MATCH_INDEX_SHARDS)).toHaveLength(DEFAULT_MATCH_INDEX_SHARDS);
    expect(shardsToRead({ index: 1, count: 4 }, DEFAULT_MATCH_INDEX_SHARDS)).toEqual([1, 5, 9, 13]);
    expect(shardsToRead({ index: 2, count: 3 }, DEFAULT_MATCH_INDEX_SHARDS)).toHaveLength(DEFAULT_MATCH_INDEX_SHARDS);
  });
});

describe('the layout: how many shards, and for how many subscribers', () => {
  it('MATCH_INDEX_SHARDS takes powers of two from 16 to 4,096 and nothing else', () => {
    const accepts = (v: string) => configSchema.shape.MATCH_INDEX_SHARDS.safeParse(v).success;
    for (const n of [16, 32, 64, 1_024, 4_096]) expect(accepts(String(n))).toBe(true);
    for (const v of ['8', '24', '100', '8192', '0', 'many']) expect(accepts(v)).toBe(false);
    expect(configSchema.shape.MATCH_INDEX_SHARDS.parse(undefined)).toBe(DEFAULT_MATCH_INDEX_SHARDS);
  });

  it('reads the stored layout, and the default when none (or one it does not know) is stored', () => {
    expect(shardsOfLayout('64 shards')).toBe(64);
    expect(shardsOfLayout(undefined)).toBe(DEFAULT_MATCH_INDEX_SHARDS);
    expect(shardsOfLayout('24 shards')).toBe(DEFAULT_MATCH_INDEX_SHARDS);
  });

  it('sizes for the worst subscriber: 16 shards to 10,000, 256 for 100,000, 2,048 for 1,000,000', () => {
    expect(matchIndexShardsFor(10_000)).toBe(16);
    expect(matchIndexShardsFor(100_000)).toBe(256);
    expect(matchIndexShardsFor(1_000_000)).toBe(2_048);
    expect(matchIndexCapacity(2_048)).toBeGreaterThanOrEqual(1_000_000);
    // The key and the entry at their longest, as Firestore counts a map entry.
    expect(WORST_SUBSCRIBER_BYTES).toBe(MAX_UID_LENGTH + 1 + MAX_INLINE_ENTRY_BYTES + 1);
    expect(subscriberId(`${'l'.repeat(64)}@${'d'.repeat(63)}.${'o'.repeat(63)}.${'m'.repeat(56)}.test`)).toHaveLength(MAX_UID_LENGTH);
  });

  it('a cron shard of n reads only its own K ÷ n index shards whatever K is', () => {
    for (const count of [16, 64, 2_048])
      for (const n of [2, 4, 16]) {
        const mine = shardsToRead({ index: 1, count: n }, count);
        expect(mine).toHaveLength(count / n);
        expect(mine.every((k) => k % n === 1)).toBe(true);
      }
  });
});
