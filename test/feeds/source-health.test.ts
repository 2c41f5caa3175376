import { describe, expect, it } from 'vitest';
import { FeedFetchError, FeedParseError } from '../../lib/feeds/feed-errors';
import {
  failureOf,
  HEALTH_RULES,
  isProbeDue,
  nextHealth,
  postingsPerDay,
  silentAfterMs,
  UNTRACKED,
  type SourceHealth,
  type SourceOutcome,
} from '../../lib/feeds/source-health';

const T0 = new Date('2026-11-01T06:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(T0.getTime() + ms);

const gone = (status = 404): SourceOutcome => ({ kind: 'error', failure: 'gone', status, message: `HTTP ${status}` });
const parse: SourceOutcome = { kind: 'error', failure: 'parse', status: null, message: 'not the documented shape' };
const transient: SourceOutcome = { kind: 'error', failure: 'transient', status: 503, message: 'HTTP 503' };
const fresh = (created: number): SourceOutcome => ({ kind: 'ok', created });
const unchanged: SourceOutcome = { kind: 'not-modified' };

/** Outcomes applied in order, each at its own instant. */
function replay(steps: [number, SourceOutcome][], from: SourceHealth = UNTRACKED): SourceHealth {
  return steps.reduce((health, [ms, outcome]) => nextHealth(health, outcome, at(ms)), from);
}

/** A source read once (its backlog), then bringing `created` new postings every `gapMs`, `times` times. */
function steady(gapMs: number, times: number, created = 1): [number, SourceOutcome][] {
  return [[0, fresh(40)], ...Array.from({ length: times }, (_, i): [number, SourceOutcome] => [(i + 1) * gapMs, fresh(created)])];
}

describe('what an error means for health', () => {
  it('404 and 410 say the board is gone, a parse error that its shape changed, anything else may pass', () => {
    expect(failureOf(new FeedFetchError({ source: 's', status: 404, message: 'HTTP 404' }))).toEqual({ failure: 'gone', status: 404 });
    expect(failureOf(new FeedFetchError({ source: 's', status: 410, message: 'HTTP 410' }))).toEqual({ failure: 'gone', status: 410 });
    expect(failureOf(new FeedParseError('s', 'bad'))).toEqual({ failure: 'parse', status: null });
    expect(failureOf(new FeedFetchError({ source: 's', status: 503, message: 'HTTP 503' }))).toEqual({ failure: 'transient', status: 503 });
    expect(failureOf(new FeedFetchError({ source: 's', message: 'timed out' }))).toEqual({ failure: 'transient', status: null });
    expect(failureOf(new Error('socket hang up'))).toEqual({ failure: 'transient', status: null });
  });
});

describe('disabled', () => {
  it('a source answering 404 on 3 fetches in a row is disabled, probed a day later', () => {
    const twice = replay([
      [0, fresh(5)],
      [HOUR, gone()],
      [2 * HOUR, gone()],
    ]);
    expect(twice).toMatchObject({ state: 'failing', consecutiveFailures: 2, goneStreak: 2, failingSince: at(HOUR) });
    const third = nextHealth(twice, gone(), at(3 * HOUR));
    expect(third).toMatchObject({
      state: 'disabled',
      disabledAt: at(3 * HOUR),
      disabledReason: 'answered 404 3 times in a row',
      nextProbeAt: at(3 * HOUR + DAY),
      failingSince: at(HOUR),
      lastErrorStatus: 404,
    });
    expect(HEALTH_RULES.goneToDisable).toBe(3);
  });

  it('a 503 between two 404s breaks the run: gone means gone every time', () => {
    const health = replay([
      [0, gone()],
      [HOUR, gone(410)],
      [2 * HOUR, transient],
      [3 * HOUR, gone()],
    ]);
    expect(health).toMatchObject({ state: 'failing', consecutiveFailures: 4, goneStreak: 1 });
  });

  it('5 parse failures in a row disable it; 4 do not', () => {
    const four = replay([0, 1, 2, 3].map((i) => [i * HOUR, parse]));
    expect(four).toMatchObject({ state: 'failing', parseStreak: 4 });
    const five = nextHealth(four, parse, at(4 * HOUR));
    expect(five).toMatchObject({ state: 'disabled', disabledReason: 'its answer failed to parse 5 times in a row' });
    expect(HEALTH_RULES.parseFailuresToDisable).toBe(5);
  });

  it('is probed once a day, not more: a failed probe stays disabled and waits another day', () => {
    const disabled = replay([0, 1, 2].map((i) => [i * HOUR, gone(410)]));
    const probeAt = at(2 * HOUR + DAY);
    expect(isProbeDue(disabled, at(2 * HOUR + 15 * 60_000))).toBe(false);
    expect(isProbeDue(disabled, new Date(probeAt.getTime() - 1))).toBe(false);
    expect(isProbeDue(disabled, probeAt)).toBe(true);
    const failedProbe = nextHealth(disabled, gone(410), probeAt);
    expect(failedProbe).toMatchObject({
      state: 'disabled',
      disabledAt: at(2 * HOUR),
      nextProbeAt: new Date(probeAt.getTime() + DAY),
      consecutiveFailures: 4,
    });
    expect(isProbeDue(failedProbe, new Date(probeAt.getTime() + HOUR))).toBe(false);
    // A probe that fails differently (a timeout) keeps it disabled too.
    expect(nextHealth(failedProbe, transient, new Date(probeAt.getTime() + DAY)).state).toBe('disabled');
  });

  it('a probe that succeeds re-enables it and clears the failure', () => {
    const disabled = replay([0, 1, 2].map((i) => [i * HOUR, gone()]));
    for (const outcome of [fresh(3), unchanged]) {
      const back = nextHealth(disabled, outcome, at(2 * HOUR + DAY));
      expect(back).toMatchObject({
        state: 'ok',
        consecutiveFailures: 0,
        goneStreak: 0,
        failingSince: null,
        disabledAt: null,
        disabledReason: null,
        nextProbeAt: null,
        lastError: null,
        lastSuccessAt: at(2 * HOUR + DAY),
      });
      expect(isProbeDue(back, at(2 * HOUR + DAY + 1))).toBe(true);
    }
  });

  it('a source that is not disabled is due every run', () => {
    expect(isProbeDue(UNTRACKED, T0)).toBe(true);
    expect(isProbeDue(replay([[0, transient]]), at(1))).toBe(true);
  });
});

describe('silent', () => {
  it('is not silent before it has 3 gaps of history, however long the quiet', () => {
    const twoGaps = replay(steady(DAY, 2));
    expect(silentAfterMs(twoGaps)).toBeNull();
    expect(nextHealth(twoGaps, unchanged, at(60 * DAY)).state).toBe('ok');
  });

  it('is silent after 3× its median gap without a new posting', () => {
    // A board posting every 2 days: silent once 6 days pass without one.
    const history = replay(steady(2 * DAY, 5));
    const last = 10 * DAY;
    expect(silentAfterMs(history)).toBe(6 * DAY);
    expect(nextHealth(history, unchanged, at(last + 6 * DAY)).state).toBe('ok');
    const silent = nextHealth(history, unchanged, at(last + 6 * DAY + 1));
    expect(silent.state).toBe('silent');
    // The next new posting ends it.
    expect(nextHealth(silent, fresh(1), at(last + 7 * DAY)).state).toBe('ok');
  });

  it('the median, not the mean: one long outage among daily postings does not stretch the usual gap', () => {
    const history = replay([...steady(DAY, 4), [4 * DAY + 30 * DAY, fresh(1)]]);
    expect(history.newPostingGapsMinutes).toEqual([1440, 1440, 1440, 1440, 30 * 1440]);
    expect(silentAfterMs(history)).toBe(HEALTH_RULES.silentFloorMs);
  });

  it('never sooner than the floor of 3 days: an hourly board is not silent after a quiet weekend day', () => {
    const hourly = replay(steady(HOUR, 10));
    expect(silentAfterMs(hourly)).toBe(3 * DAY);
    expect(nextHealth(hourly, unchanged, at(10 * HOUR + 2 * DAY)).state).toBe('ok');
    expect(nextHealth(hourly, unchanged, at(10 * HOUR + 3 * DAY + 1)).state).toBe('silent');
  });

  it('keeps the last 20 gaps only', () => {
    const long = replay(steady(HOUR, 30));
    expect(long.newPostingGapsMinutes).toHaveLength(HEALTH_RULES.gapHistory);
  });

  it('a failing source is failing, not silent', () => {
    const history = replay(steady(DAY, 4));
    expect(nextHealth(history, transient, at(30 * DAY)).state).toBe('failing');
  });

  it('an outcome recorded late (an overlapping run) never moves the last new posting back nor adds a negative gap', () => {
    const history = replay(steady(DAY, 3));
    const late = nextHealth(history, fresh(2), at(3 * DAY - HOUR));
    expect(late.lastNewPostingAt).toEqual(at(3 * DAY));
    expect(late.lastSuccessAt).toEqual(at(3 * DAY));
    expect(late.newPostingGapsMinutes).toEqual(history.newPostingGapsMinutes);
  });
});

describe('postings per day', () => {
  it('counts new postings per UTC day, not the backlog of the first read', () => {
    const health = replay([
      [0, fresh(200)],
      [HOUR, fresh(3)],
      [2 * HOUR, unchanged],
      [DAY, fresh(5)],
      [DAY + HOUR, fresh(0)],
    ]);
    expect(health.newPostingsByDay).toEqual({ '2026-11-01': 3, '2026-11-02': 5 });
    // Tracked for a day and an hour: 8 postings over 25 hours.
    expect(postingsPerDay(health, at(DAY + HOUR))).toBeCloseTo(8 / (25 / 24));
    // Tracked for less than a day: the rate is over one day, not extrapolated.
    expect(
      postingsPerDay(
        replay([
          [0, fresh(9)],
          [HOUR, fresh(2)],
        ]),
        at(HOUR),
      ),
    ).toBe(2);
  });

  it('keeps 14 days: older days drop out of the map and the rate', () => {
    const health = replay(Array.from({ length: 30 }, (_, i): [number, SourceOutcome] => [i * DAY, fresh(i === 0 ? 100 : 2)]));
    expect(Object.keys(health.newPostingsByDay)).toHaveLength(HEALTH_RULES.rateWindowDays);
    expect(Object.keys(health.newPostingsByDay)[0]).toBe('2026-11-17');
    expect(postingsPerDay(health, at(29 * DAY))).toBe(2);
  });

  it('is unknown before the first success', () => {
    expect(postingsPerDay(UNTRACKED, T0)).toBeNull();
    expect(postingsPerDay(replay([[0, gone()]]), at(1))).toBeNull();
  });
});
