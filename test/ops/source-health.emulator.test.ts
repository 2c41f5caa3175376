import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardPage } from '../../lib/admin/dashboard-page';
import { readDashboard } from '../../lib/ops/read-dashboard';
import { readOpsStatus } from '../../lib/ops/read-status';
import { status } from '../../scripts/cli/status';
import { createHarness, type Harness } from '../support/harness';
import { recordSourcesInFourStates } from '../support/sources-in-four-states';

const NOW = new Date('2026-12-02T08:00:00Z');
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  await recordSourcesInFourStates(h.db, NOW);
});
afterAll(async () => h.close());

describe('source health where the operator looks', () => {
  it('the dashboard lists disabled, failing and silent sources first, each with its numbers and what to do', async () => {
    const d = await readDashboard(h.db, {
      now: NOW,
      digestHourUtc: h.config.DIGEST_HOUR_UTC,
      configuredFeeds: [{ source: 'new-board', url: 'https://new.example.com/jobs.xml' }],
    });
    expect(d.feeds.map((f) => [f.source, f.state])).toEqual([
      ['acme', 'disabled'],
      ['jobs-feed', 'failing'],
      ['quiet-board', 'silent'],
      ['new-board', 'never'],
      ['remote-jobs', 'ok'],
    ]);
    const [acme, failing, quiet, , ok] = d.feeds;
    expect(acme).toMatchObject({
      kind: 'greenhouse',
      label: 'Greenhouse · acme',
      consecutiveFailures: 4,
      lastError: 'HTTP 404',
      lastSuccessAt: new Date('2026-11-29T08:00:00Z'),
      whatToDo:
        'disabled: the board answered 404 3 times in a row since 2026-11-30 07:30 UTC; check its params in SOURCES (a board token or site name that changed); the daily probe re-enables it (next 2026-12-02 08:15 UTC)',
    });
    expect(failing.whatToDo).toBe(
      "failing: 2 failures in a row since 2026-12-02 07:30 UTC; every run tries again, and 3 answers of 404/410 or 5 parse failures in a row disable it; if it lasts, check its URL in FEED_URLS or SOURCES and the provider's status",
    );
    expect(quiet).toMatchObject({
      whatToDo: 'silent: no new posting for 9 days (usual gap 1 day); check the board still lists jobs',
      sinceLastNewMs: 9 * 86_400_000,
    });
    expect(ok).toMatchObject({ whatToDo: null, usualGapMs: 86_400_000, sinceLastNewMs: 3_600_000, status: 'ok', lastItemCount: 30 });
    // Two weeks of 2 or 3 new postings a day (the first read's backlog of 30 is not a rate).
    expect(ok.postingsPerDay).toBeGreaterThanOrEqual(2);
    expect(ok.postingsPerDay).toBeLessThanOrEqual(3);
  });

  it('the ops page renders a Sources panel: a state badge per source and a line saying what to do under each one that needs it', async () => {
    const dashboard = await readDashboard(h.db, { now: NOW, digestHourUtc: h.config.DIGEST_HOUR_UTC });
    const body = await (await dashboardPage({ dashboard })).text();
    const panel = body.slice(body.indexOf('id="sources-title"'));
    expect(panel).toContain('<span class="pill bad">disabled</span>');
    expect(panel).toContain('<span class="pill warn">failing</span>');
    expect(panel).toContain('<span class="pill warn">silent</span>');
    expect(panel).toContain('<span class="pill ok">ok</span>');
    expect(panel).toMatch(/<tr class="todo bad"><td colSpan="8">disabled: the board answered 404 3 times in a row/i);
    expect(panel).toMatch(/<tr class="todo warn"><td colSpan="8">silent: no new posting for 9 days \(usual gap 1 day\)/i);
    expect(panel.match(/class="todo /g)).toHaveLength(3);
    expect(panel.indexOf('acme')).toBeLessThan(panel.indexOf('remote-jobs'));
  });

  it('scout status says the same, one line per source, and exits 1 while a source is disabled', async () => {
    const s = await readOpsStatus(h.db, { now: NOW, digestHourUtc: h.config.DIGEST_HOUR_UTC });
    expect(s.sources.map((v) => v.state)).toEqual(['disabled', 'failing', 'silent', 'ok']);
    const lines: string[] = [];
    const code = await status(
      { db: h.db, now: NOW, digestHourUtc: h.config.DIGEST_HOUR_UTC, out: (line) => lines.push(line), appDeps: () => h.deps },
      { limit: 5 },
    );
    expect(code).toBe(1);
    const sources = lines.filter((line) => line.startsWith('source '));
    expect(sources).toHaveLength(4);
    expect(sources[0]).toBe(
      'source acme [disabled] Greenhouse · acme: last success 2026-11-29 08:00 UTC, 4 failures in a row, last error "HTTP 404", ' +
        `${s.sources[0].postingsPerDay!.toFixed(1)} postings/day, last new posting 3 days ago — ${s.sources[0].whatToDo}`,
    );
    expect(sources[2]).toMatch(
      /^source quiet-board \[silent\] feed · quiet-board\.example\.com: .*last new posting 9 days ago — silent: no new posting for 9 days \(usual gap 1 day\); check the board still lists jobs$/,
    );
    expect(sources[3]).toMatch(
      /^source remote-jobs \[ok\] feed · remote-jobs\.example\.com: .*0 failures in a row, [23]\.\d postings\/day, last new posting 1 hour ago$/,
    );
  });
});
