import { describe, expect, it } from 'vitest';
import {
  billLines,
  countedOps,
  dayBill,
  dayUnits,
  FIRESTORE_LIST_PRICE,
  REALISTIC_DAY,
  rebuiltOps,
  unitCosts,
  unitOf,
  type BenchCounted,
  type UnitCosts,
} from '../../scripts/bench/bill';
import type { CountsByCollection } from '../../scripts/bench/firestore-counter';

const c = (reads: number, writes = 0, deletes = 0) => ({ reads, writes, deletes });

/** An idle run: the lock (written, then deleted), the run record, the feed's state, two empty queries. */
const idlePhases = {
  fetch: { feeds: c(1, 1) },
  match: {},
  claim: { cursors: c(1) },
  flush: { deliveries: c(1) },
  dispatch: { emails: c(1) },
};
const idleTotal: CountsByCollection = { feeds: c(1, 1), cursors: c(1), deliveries: c(1), emails: c(1), locks: c(1, 2, 1), runs: c(0, 1) };

/**
 * A small bench: U=100, J=10, 10 deliveries (5 instant → 5 alerts, 5 queued → 5 digests later).
 * Each cell is the idle run's plus what the work added.
 */
const counted: BenchCounted = {
  subscribers: 100,
  postings: 10,
  deliveries: 10,
  alerts: 5,
  digests: 5,
  sweep: { reads: 120, writes: 2, deletes: 0 },
  cycle: {
    phases: {
      fetch: { feeds: c(1, 1), jobs: c(10, 10), postingKeys: c(20, 20) },
      match: { users: c(100), jobs: c(10) },
      claim: { cursors: c(1), deliveries: c(0, 10), emails: c(3, 5), jobs: c(10, 10) },
      flush: { deliveries: c(1) },
      dispatch: { emails: c(1 + 10, 10), users: c(5) },
    },
    total: {
      feeds: c(1, 1),
      jobs: c(30, 20),
      postingKeys: c(20, 20),
      users: c(105),
      cursors: c(1),
      deliveries: c(1, 10),
      emails: c(1 + 3 + 10, 5 + 10),
      locks: c(1, 2, 1),
      runs: c(0, 1),
    },
    expiring: { jobs: 10, postingKeys: 20, deliveries: 10, emails: 5, runs: 1 },
  },
  afterCycle: {
    runs: 2,
    // Two runs, each the idle run's, plus the five digests: 7 reads, 3 writes each (and their rows expiring).
    total: {
      feeds: c(2, 2),
      cursors: c(2),
      deliveries: c(2 + 25, 25),
      emails: c(2 + 10, 10),
      users: c(5),
      locks: c(2, 4, 2),
      runs: c(0, 2),
    },
    expiring: { emails: 5, runs: 2 },
  },
  idle: { phases: idlePhases, total: idleTotal, expiring: { runs: 1 } },
};

describe('the bill: costs per unit of work, from what the bench counted', () => {
  it.each([
    ['fetch', 'feeds', 'posting'],
    ['claim', 'jobs', 'posting'],
    ['match', 'postingKeys', 'posting'],
    ['match', 'users', 'matchPass'],
    ['match', 'subscriberIndex', 'matchPass'],
    ['dispatch', 'users', 'alert'],
    ['claim', 'emails', 'alert'],
    ['outside', 'emails', 'alert'],
    ['claim', 'deliveries', 'delivery'],
    ['flush', 'users', 'delivery'],
    ['outside', 'locks', 'delivery'],
  ] as const)('%s phase, %s/ → per %s', (phase, collection, unit) => {
    expect(unitOf(phase, collection)).toBe(unit);
  });

  it('everything counted: the costs per unit, times the bench’s own units, give back every read, write and delete it counted', () => {
    const rebuilt = rebuiltOps(unitCosts(counted), counted);
    const all = countedOps(counted);
    // By hand: the three runs' totals, writes without deletes, deletes with the TTL's to come.
    expect(all).toEqual({ reads: 173 + 50 + 5, writes: 68 + 41 + 3, deletes: 1 + 46 + 2 + 7 + 1 + 1 });
    expect(rebuilt.reads).toBeCloseTo(all.reads, 9);
    expect(rebuilt.writes).toBeCloseTo(all.writes, 9);
    expect(rebuilt.deletes).toBeCloseTo(all.deletes, 9);
  });

  it('a cycle finished by a catch-up run: the second call’s overhead is a run’s, and the units cost what one call’s did', () => {
    // The same work over two calls: the second adds one idle run's operations, phase by phase.
    const addCells = (a: CountsByCollection, b: CountsByCollection): CountsByCollection => {
      const out: CountsByCollection = { ...a };
      for (const [k, v] of Object.entries(b)) {
        const o = out[k] ?? c(0);
        out[k] = { reads: o.reads + v.reads, writes: o.writes + v.writes, deletes: o.deletes + v.deletes };
      }
      return out;
    };
    const phases = { ...counted.cycle.phases };
    for (const [phase, cells] of Object.entries(idlePhases))
      phases[phase as keyof typeof phases] = addCells(phases[phase as keyof typeof phases] ?? {}, cells);
    const twoCalls: BenchCounted = {
      ...counted,
      cycle: {
        runs: 2,
        phases,
        total: addCells(counted.cycle.total, idleTotal),
        expiring: { ...counted.cycle.expiring, runs: (counted.cycle.expiring.runs ?? 0) + 1 },
      },
    };
    const one = unitCosts(counted);
    const two = unitCosts(twoCalls);
    for (const unit of ['posting', 'delivery', 'alert', 'digest'] as const) {
      expect(two[unit].reads, unit).toBeCloseTo(one[unit].reads, 9);
      expect(two[unit].writes, unit).toBeCloseTo(one[unit].writes, 9);
      expect(two[unit].deletes, unit).toBeCloseTo(one[unit].deletes, 9);
    }
    const rebuilt = rebuiltOps(two, twoCalls);
    const all = countedOps(twoCalls);
    expect(rebuilt.reads).toBeCloseTo(all.reads, 9);
    expect(rebuilt.writes).toBeCloseTo(all.writes, 9);
    expect(rebuilt.deletes).toBeCloseTo(all.deletes, 9);
  });

  it('splits the cycle above an idle run by what each cost grows with', () => {
    const costs = unitCosts(counted);
    // The idle run: 5 reads, 3 writes (the feed's state, the lock, the run record), the lock's delete and its run record expiring.
    expect(costs.run).toEqual({ reads: 5, writes: 3, deletes: 2 });
    // Postings: 10 stored + 20 keys, read and written in fetch; read again in match; marked in claim; all of them expiring.
    expect(costs.posting).toEqual({ reads: (10 + 20 + 10 + 10) / 10, writes: (10 + 20 + 10) / 10, deletes: 3 });
    expect(costs.matchPass).toEqual({ reads: 100, writes: 0, deletes: 0 });
    // Alerts: the claim's row checks and creates, the dispatch's rows and the subscribers re-read before the send.
    expect(costs.alert).toEqual({ reads: (3 + 10 + 5) / 5, writes: (5 + 10) / 5, deletes: 1 });
    expect(costs.delivery).toEqual({ reads: 0, writes: 1, deletes: 1 });
    expect(costs.digest).toEqual({ reads: (25 + 10 + 5) / 5, writes: (25 + 10) / 5, deletes: 1 });
  });

  it('a phase that reads an index instead of every subscriber makes a cheaper match pass, with nothing else assumed', () => {
    const indexed: BenchCounted = structuredClone(counted);
    indexed.cycle.phases.match = { subscriberIndex: c(2), jobs: c(10) };
    indexed.cycle.total = { ...indexed.cycle.total, users: c(5), subscriberIndex: c(2) };
    const costs = unitCosts(indexed);
    expect(costs.matchPass).toEqual({ reads: 2, writes: 0, deletes: 0 });
    expect(costs.posting).toEqual(unitCosts(counted).posting);
  });
});

describe('the bill: a realistic day', () => {
  const day = (subscribers: number, postingsPerDay = 500) => ({ ...REALISTIC_DAY, subscribers, postingsPerDay });

  it('96 runs share the day’s postings; 1% of pairs match; an alert per instant subscriber per run with a match, a digest per daily subscriber', () => {
    const units = dayUnits(day(10_000));
    expect(units.run).toBe(96);
    expect(units.posting).toBe(500);
    expect(units.matchPass).toBe(96);
    expect(units.delivery).toBe(50_000);
    // 5,000 instant subscribers × 96 runs × P(a match among 500/96 postings)
    expect(units.alert).toBeCloseTo(5_000 * 96 * (1 - 0.99 ** (500 / 96)), 6);
    expect(units.alert).toBeGreaterThan(24_000);
    expect(units.alert).toBeLessThan(25_000);
    expect(units.digest).toBeCloseTo(5_000 * (1 - 0.99 ** 500), 6);
  });

  it('fewer postings than runs: only the runs that find one match and alert', () => {
    const units = dayUnits(day(1_000, 40));
    expect(units.matchPass).toBe(40);
    expect(units.alert).toBeCloseTo(500 * 40 * 0.01, 9);
  });

  const costs: UnitCosts = {
    subscribers: 10_000,
    run: { reads: 8, writes: 4, deletes: 2 },
    posting: { reads: 3, writes: 3, deletes: 3 },
    matchPass: { reads: 10_000, writes: 0, deletes: 0 },
    delivery: { reads: 0, writes: 1, deletes: 1 },
    alert: { reads: 3, writes: 3, deletes: 1 },
    digest: { reads: 7, writes: 7, deletes: 1 },
    sweep: { reads: 1, writes: 0, deletes: 0 },
  };

  it('prices reads, writes and deletes at nam5 list price, per day and per 1,000 subscribers a month', () => {
    const bill = dayBill(costs, day(10_000));
    const u = bill.units;
    // The repair sweep checks each subscriber once a day: one read each.
    expect(bill.total.reads).toBeCloseTo(96 * 8 + 500 * 3 + 96 * 10_000 + u.alert * 3 + u.digest * 7 + 10_000, 6);
    expect(bill.total.writes).toBeCloseTo(96 * 4 + 500 * 3 + 50_000 + u.alert * 3 + u.digest * 7, 6);
    expect(bill.total.deletes).toBeCloseTo(96 * 2 + 500 * 3 + 50_000 + u.alert + u.digest, 6);
    const dollars = (bill.total.reads * 0.06 + bill.total.writes * 0.18 + bill.total.deletes * 0.02) / 100_000;
    expect(bill.dollarsPerDay).toBeCloseTo(dollars, 9);
    expect(bill.dollarsPerThousandSubscribersPerMonth).toBeCloseTo((dollars * 30) / 10, 9);
    expect(FIRESTORE_LIST_PRICE.location).toBe('nam5');
  });

  it('at U=100k a match pass reads ten times what it read at the bench’s U; a run and a posting cost the same', () => {
    const small = dayBill(costs, day(10_000));
    const large = dayBill(costs, day(100_000));
    expect(large.byUnit.matchPass.reads).toBeCloseTo(10 * small.byUnit.matchPass.reads, 6);
    expect(large.byUnit.run).toEqual(small.byUnit.run);
    expect(large.byUnit.posting).toEqual(small.byUnit.posting);
    expect(large.byUnit.delivery.writes).toBeCloseTo(10 * small.byUnit.delivery.writes, 6);
  });

  it('prints the unit costs, the day at each size and where its dollars go', () => {
    const lines = billLines(costs, [dayBill(costs, day(10_000)), dayBill(costs, day(100_000))]);
    expect(lines.filter((l) => l.startsWith('| 10,000 |'))).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith('| 100,000 |'))).toHaveLength(2);
    expect(lines).toContain('| match pass (at U=10,000) | 10000.00 | 0.00 | 0.00 |');
  });
});

describe('the storage a realistic day holds once its retention has filled', () => {
  const kind = (units: number, bytes: number, keptDays: number | null) => ({
    documents: units,
    units,
    bytes,
    indexBytes: bytes / 2,
    keptDays,
  });
  const stored = {
    delivery: kind(1_000, 1_000 * 2_048, 30),
    alert: kind(100, 100 * 10_240, 30),
    digest: kind(50, 50 * 20_480, 30),
    posting: kind(10, 10 * 4_096, 7),
    run: kind(4, 4 * 1_024, 30),
    subscriber: kind(100, 100 * 1_024, null),
    fixed: kind(0, 5_000, null),
  };
  const day = { ...REALISTIC_DAY, subscribers: 10_000, postingsPerDay: 500 };

  it('holds each day’s deliveries, emails, postings and runs for the days they are kept, the subscribers and the rest once', async () => {
    const { storageBill } = await import('../../scripts/bench/bill');
    const units = dayUnits(day);
    const bill = storageBill(stored, day, 0.18);
    const gib = 2 ** 30;
    expect(bill.byKind.delivery.gib).toBeCloseTo((units.delivery * 2_048 * 30) / gib, 9);
    expect(bill.byKind.digest.gib).toBeCloseTo((units.digest * 20_480 * 30) / gib, 9);
    expect(bill.byKind.posting.gib).toBeCloseTo((500 * 4_096 * 7) / gib, 9);
    expect(bill.byKind.subscriber.gib).toBeCloseTo((10_000 * 1_024) / gib, 9);
    expect(bill.byKind.fixed.gib).toBeCloseTo(5_000 / gib, 9);
    expect(bill.dollarsPerMonth).toBeCloseTo(bill.gib * 0.18, 9);
    expect(bill.dollarsPerThousandSubscribersPerMonth).toBeCloseTo(bill.dollarsPerMonth / 10, 9);
  });

  it('prices a month of email at the cheapest Resend plan that carries it, overage included', async () => {
    const { resendPerMonth } = await import('../../scripts/bench/bill');
    expect(resendPerMonth(3_000)).toEqual({ plan: 'Free', dollars: 0 });
    expect(resendPerMonth(50_000)).toEqual({ plan: 'Pro', dollars: 20 });
    // 60,000: Pro with 10,000 over ($29) beats Scale ($90).
    expect(resendPerMonth(60_000)).toEqual({ plan: 'Pro', dollars: 29 });
    // 885,000 (U=10,000 at 2.95 a day): Scale 1M ($650) beats Scale 100k with 785,000 over ($796.50).
    expect(resendPerMonth(885_000)).toEqual({ plan: 'Scale 1M', dollars: 650 });
  });
});
