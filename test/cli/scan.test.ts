import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardOf } from '../../lib/runtime/shard';
import { parseScanArgs, scan } from '../../scripts/cli/scan';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = new Date('2026-11-30T06:00:00Z');
let h: Harness;

beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
  h.serveFeed(postingsAbout('react', 2, { at: NOW }));
});
afterEach(async () => h.close());

const context = (lines: string[]) => ({
  db: h.db,
  now: NOW,
  digestHourUtc: h.config.DIGEST_HOUR_UTC,
  out: (line: string) => void lines.push(line),
  appDeps: () => h.deps,
});

describe('scout scan', () => {
  it('runs the endpoint’s cycle with each phase as it finishes, then the stats; a second scan sends nothing', async () => {
    const lines: string[] = [];
    expect(await scan(context(lines), { dryRun: false, now: NOW })).toBe(0);
    expect(lines.filter((l) => l.endsWith('…'))).toEqual(['fetch…', 'match…', 'claim…', 'flush…', 'dispatch…', 'messages…', 'repair…']);
    expect(lines).toContainEqual(expect.stringMatching(/^run \S+: 2 new postings of 2, 1 subscribers, 2 matches$/));
    expect(lines).toContainEqual('sent 1 alerts and 0 digests (1 provider requests); 0 queued for digests');
    expect(await h.inbox()).toHaveLength(1);

    const again: string[] = [];
    expect(await scan(context(again), { dryRun: false, now: new Date('2026-11-30T06:15:00Z') })).toBe(0);
    expect(again).toContainEqual('sent 0 alerts and 0 digests (0 provider requests); 0 queued for digests');
    expect(await h.inbox()).toHaveLength(1);
  });

  it('--dry-run reports what would be sent and writes nothing', async () => {
    const before = await h.dump();
    const lines: string[] = [];
    expect(await scan(context(lines), { dryRun: true, now: NOW })).toBe(0);
    expect(lines).toContainEqual('would send 1 alerts (2 postings), queue 0 for digests, send 0 digests; 0 emails already pending');
    expect(await h.dump()).toEqual(before);
  });

  it('--now is refused without ALLOW_CLOCK_OVERRIDE, and a bad --now is a usage error', async () => {
    const lines: string[] = [];
    const ctx = { ...context(lines), appDeps: () => ({ ...h.deps, config: { ...h.config, ALLOW_CLOCK_OVERRIDE: false } }) };
    expect(await scan(ctx, { dryRun: false, now: NOW })).toBe(2);
    expect(lines).toEqual(['not run: --now is honoured only with ALLOW_CLOCK_OVERRIDE=true']);
    expect(await h.inbox()).toHaveLength(0);
    expect(parseScanArgs(['--now', 'yesterday'])).toEqual({
      kind: 'invalid',
      message: '--now must be an ISO time, e.g. 2026-11-30T08:05:00Z',
    });
  });

  it('--shard k/n runs that shard only, under its own lock and run record', async () => {
    expect(parseScanArgs(['--shard', '1/2'])).toEqual({ kind: 'args', args: { dryRun: false, now: null, shard: { index: 1, count: 2 } } });
    for (const bad of ['2/2', '1', 'a/b', '0/65', '1/0'])
      expect(parseScanArgs(['--shard', bad])).toEqual({ kind: 'invalid', message: expect.stringContaining('--shard must be') });
    const owner = shardOf(await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' }), 2);

    const other: string[] = [];
    expect(await scan(context(other), { dryRun: false, now: NOW, shard: { index: 1 - owner, count: 2 } })).toBe(0);
    expect(await h.inbox()).toHaveLength(0);
    const own: string[] = [];
    expect(await scan(context(own), { dryRun: false, now: NOW, shard: { index: owner, count: 2 } })).toBe(0);
    expect(await h.inbox()).toHaveLength(1);
    const runs = await h.db.collection('runs').get();
    expect(runs.docs.map((d) => d.get('shard')).sort()).toEqual(['0-of-2', '1-of-2']);
  });
});
