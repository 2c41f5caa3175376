/**
 * The Firestore bill of a realistic day, from what the bench counted. The bench's own day is not a
 * realistic one (every posting arrives in one morning cycle), so its counts are first turned into
 * costs per unit of work, then multiplied out over a day the way a deployment lives it: 96 runs (a
 * scheduler every 15 minutes), the day's postings spread evenly over them, a share of the
 * subscriber × posting pairs matching, half the subscribers instant and half daily.
 *
 * Costs per unit (unitCosts), from the counts of three kinds of run:
 *   - run:        an idle run, the one the bench makes after the others with nothing new and
 *                 nothing due (lock, run record, feed state, the empty queries). Every run pays it.
 *   - the 06:00 cycle, with the catch-up runs that finished its work when its budget cut it short
 *     (as many idle runs above, one per call), phase by phase and collection by collection:
 *     - posting:    the fetch phase, and the postings' own documents (jobs/, postingKeys/) in any
 *                   phase, ÷ J;
 *     - match pass: the rest of the match phase, whatever it reads (every subscriber, or an index
 *                   of them), for one run that found new postings; scaled by U / the bench's U;
 *     - alert:      the dispatch phase, and the outbox (emails/) in the other phases, ÷ alerts
 *                   sent — the claim's check whether today's digest is claimed falls here too:
 *                   it is made once per daily subscriber with a match, as many as instant ones;
 *     - delivery:   everything else (the ledger's creates, the run's work outside its phases),
 *                   ÷ deliveries claimed;
 *   - digest:     the runs after the cycle, above an idle run each, ÷ digests sent (the flush,
 *                 the items' `sent` marks, the digests' dispatch).
 * TTL deletes are counted as the documents a run leaves behind in the collections under a TTL
 * policy (scripts/apply-ttl.sh), attributed by the same rules; an explicit delete (the lock's
 * release) is counted where it is made. A write here excludes deletes: Firestore prices them apart.
 *
 * The day (dayUnits), for U subscribers, J postings a day, R runs, match rate p, instant share s:
 *   runs with postings   P = min(R, J), each with J / P postings
 *   deliveries           U × J × p
 *   alerts               U × s × P × (1 − (1 − p)^(J / P))    an instant subscriber's email per run with a match
 *   digests              U × (1 − s) × (1 − (1 − p)^J)        a daily subscriber's one digest, if it matched at all
 * and the bill (dayBill) = R × run + J × posting + P × matchPass × U / U_bench + deliveries × delivery
 * + alerts × alert + digests × digest, in reads, writes and deletes, at list price.
 */
import type { CyclePhase } from '../../lib/ledger/runs';
import { COLLECTIONS } from '../../lib/store/collections';
import type { CollectionCounts, CountsByCollection } from './firestore-counter';
import type { StoredBytes, StoredKind } from './stored-bytes';

/**
 * Firestore Standard edition list prices in nam5 (United States, multi-region), USD per document,
 * without the free quota: reads $0.06, writes $0.18, deletes $0.02 per 100,000
 * (https://cloud.google.com/firestore/pricing, "Pricing by location"). TTL deletes are billed as
 * document deletes (https://cloud.google.com/firestore/docs/ttl#pricing).
 */
export const FIRESTORE_LIST_PRICE = {
  location: 'nam5',
  read: 0.06 / 100_000,
  write: 0.18 / 100_000,
  delete: 0.02 / 100_000,
  source: 'https://cloud.google.com/firestore/pricing',
} as const;
export type Prices = Pick<typeof FIRESTORE_LIST_PRICE, 'read' | 'write' | 'delete'>;

/**
 * The same list for a regional US location (us-central1): half of nam5's — reads $0.03, writes
 * $0.09, deletes $0.01 per 100,000 (https://cloud.google.com/firestore/pricing, "Pricing by
 * location"). docs/deploy.md lets a deployment choose either; the bill is printed at both.
 */
export const FIRESTORE_REGIONAL_PRICE = {
  location: 'us-central1',
  read: 0.03 / 100_000,
  write: 0.09 / 100_000,
  delete: 0.01 / 100_000,
  source: 'https://cloud.google.com/firestore/pricing',
} as const;

/** Operations as Firestore bills them: `writes` without the deletes. */
export type Ops = { reads: number; writes: number; deletes: number };
const NONE: Ops = { reads: 0, writes: 0, deletes: 0 };
const add = (a: Ops, b: Ops): Ops => ({ reads: a.reads + b.reads, writes: a.writes + b.writes, deletes: a.deletes + b.deletes });
const minus = (a: Ops, b: Ops): Ops => ({ reads: a.reads - b.reads, writes: a.writes - b.writes, deletes: a.deletes - b.deletes });
const times = (a: Ops, k: number): Ops => ({ reads: a.reads * k, writes: a.writes * k, deletes: a.deletes * k });
const per = (a: Ops, n: number): Ops => (n > 0 ? times(a, 1 / n) : NONE);

/** The counter's figures (writes include deletes) as billed operations. */
const billed = (c: CollectionCounts | undefined): Ops => (c ? { reads: c.reads, writes: c.writes - c.deletes, deletes: c.deletes } : NONE);

/** What one run did, by collection: `total` is the whole run; `expiring`, the documents it left under a TTL policy. */
export type RunCounted = { total: CountsByCollection; expiring: Record<string, number> };
/** `runs`: how many calls the counts add up (the cycle and the catch-ups that finished its work); 1 when absent. */
export type CycleCounted = RunCounted & { phases: Partial<Record<CyclePhase, CountsByCollection>>; runs?: number };

export type BenchCounted = {
  /** The bench's U and J. */
  subscribers: number;
  postings: number;
  cycle: CycleCounted;
  /** Every run after the cycle, added up: `runs` of them. */
  afterCycle: RunCounted & { runs: number };
  idle: CycleCounted;
  deliveries: number;
  /** Alerts sent by the cycle (it sends no digest: the bench's digests fall due after it). */
  alerts: number;
  /** Digests sent by the runs after the cycle. */
  digests: number;
  /**
   * The match index's repair sweep over the bench's U subscribers, measured when it built the index
   * after seeding (its runs are set so that no other sweep falls due during the bench's day): a
   * deployment pays one a day.
   */
  sweep: Ops;
};

export type UnitCosts = {
  /** The bench's U: a match pass is scaled from it. */
  subscribers: number;
  run: Ops;
  posting: Ops;
  matchPass: Ops;
  delivery: Ops;
  alert: Ops;
  digest: Ops;
  /** One subscriber's check by the daily repair sweep. */
  sweep: Ops;
};
export type Unit = Exclude<keyof UnitCosts, 'subscribers'>;

/** The postings' own documents: whatever phase touches them, they grow with postings. */
const POSTING_COLLECTIONS = new Set<string>([COLLECTIONS.postings, COLLECTIONS.postingKeys]);

/** Which unit of work an operation of the cycle grows with, by the phase it was made in and its collection. */
export function unitOf(phase: CyclePhase | 'outside', collection: string): Exclude<Unit, 'run' | 'digest' | 'sweep'> {
  if (POSTING_COLLECTIONS.has(collection) || phase === 'fetch') return 'posting';
  if (phase === 'match') return 'matchPass';
  if (phase === 'dispatch' || collection === COLLECTIONS.emails) return 'alert';
  return 'delivery';
}

const sumOps = (byCollection: CountsByCollection) => Object.values(byCollection).reduce((sum, c) => add(sum, billed(c)), NONE);
const ttlDeletes = (expiring: Record<string, number>) => Object.values(expiring).reduce((n, d) => n + d, 0);

/** Every operation of a run, phase and collection, as (phase, collection, ops); what no phase made is `outside`. */
function cells(run: CycleCounted): { phase: CyclePhase | 'outside'; collection: string; ops: Ops }[] {
  const out: { phase: CyclePhase | 'outside'; collection: string; ops: Ops }[] = [];
  const inPhases: CountsByCollection = {};
  for (const [phase, byCollection] of Object.entries(run.phases) as [CyclePhase, CountsByCollection][]) {
    for (const [collection, c] of Object.entries(byCollection)) {
      out.push({ phase, collection, ops: billed(c) });
      const seen = inPhases[collection] ?? { reads: 0, writes: 0, deletes: 0 };
      inPhases[collection] = { reads: seen.reads + c.reads, writes: seen.writes + c.writes, deletes: seen.deletes + c.deletes };
    }
  }
  for (const [collection, c] of Object.entries(run.total))
    out.push({ phase: 'outside', collection, ops: minus(billed(c), billed(inPhases[collection])) });
  // TTL deletes to come: the run's, by the collection they will be deleted from.
  for (const [collection, n] of Object.entries(run.expiring)) out.push({ phase: 'outside', collection, ops: { ...NONE, deletes: n } });
  return out;
}

/** The bench's counts as costs per unit of work (see the top of this file). */
export function unitCosts(counted: BenchCounted): UnitCosts {
  const run = add(sumOps(counted.idle.total), { ...NONE, deletes: ttlDeletes(counted.idle.expiring) });
  const cycle: Record<Exclude<Unit, 'run' | 'digest' | 'sweep'>, Ops> = { posting: NONE, matchPass: NONE, delivery: NONE, alert: NONE };
  for (const { phase, collection, ops } of cells(counted.cycle))
    cycle[unitOf(phase, collection)] = add(cycle[unitOf(phase, collection)], ops);
  // The idle run's share of each cell, taken off the same unit once per call the cycle took, so
  // its overhead as runs is not counted twice.
  const cycleRuns = counted.cycle.runs ?? 1;
  for (const { phase, collection, ops } of cells(counted.idle))
    cycle[unitOf(phase, collection)] = minus(cycle[unitOf(phase, collection)], times(ops, cycleRuns));
  const afterCycle = add(sumOps(counted.afterCycle.total), { ...NONE, deletes: ttlDeletes(counted.afterCycle.expiring) });
  return {
    subscribers: counted.subscribers,
    run,
    posting: per(cycle.posting, counted.postings),
    matchPass: cycle.matchPass,
    delivery: per(cycle.delivery, counted.deliveries),
    alert: per(cycle.alert, counted.alerts),
    digest: per(minus(afterCycle, times(run, counted.afterCycle.runs)), counted.digests),
    sweep: per(counted.sweep, counted.subscribers),
  };
}

/** Every read, write and delete the bench counted in its runs (the cycle, the runs after it, the idle run), TTL deletes to come included. */
export function countedOps(counted: BenchCounted): Ops {
  const run = (r: RunCounted) => add(sumOps(r.total), { ...NONE, deletes: ttlDeletes(r.expiring) });
  return add(add(run(counted.cycle), run(counted.afterCycle)), run(counted.idle));
}

/**
 * The bench's own runs rebuilt from the costs per unit: equal to countedOps when nothing counted
 * was left out (every run pays `run`: the cycle and its catch-ups, the runs after it and the idle run).
 */
export function rebuiltOps(costs: UnitCosts, counted: BenchCounted): Ops {
  return [
    times(costs.run, (counted.cycle.runs ?? 1) + counted.afterCycle.runs + 1),
    times(costs.posting, counted.postings),
    costs.matchPass,
    times(costs.delivery, counted.deliveries),
    times(costs.alert, counted.alerts),
    times(costs.digest, counted.digests),
  ].reduce(add, NONE);
}

export type RealisticDay = {
  subscribers: number;
  postingsPerDay: number;
  runsPerDay: number;
  matchRate: number;
  /** The share of subscribers who take instant alerts; the rest take a daily digest. */
  instantShare: number;
};
/** The realistic day: a scheduler every 15 minutes, 1% of pairs matching, half instant and half daily. */
export const REALISTIC_DAY: Omit<RealisticDay, 'subscribers' | 'postingsPerDay'> = { runsPerDay: 96, matchRate: 0.01, instantShare: 0.5 };

export type DayUnits = Record<Unit, number>;

/** How many of each unit of work the day holds (formulas at the top of this file). */
export function dayUnits(day: RealisticDay): DayUnits {
  const { subscribers: U, postingsPerDay: J, runsPerDay: R, matchRate: p, instantShare: s } = day;
  const withPostings = Math.min(R, J);
  const postingsPerRun = withPostings > 0 ? J / withPostings : 0;
  return {
    run: R,
    posting: J,
    matchPass: withPostings,
    delivery: U * J * p,
    alert: U * s * withPostings * (1 - (1 - p) ** postingsPerRun),
    digest: U * (1 - s) * (1 - (1 - p) ** J),
    // The repair sweep checks every subscriber once a day (lib/subscribers/repair-match-index.ts).
    sweep: U,
  };
}

export type DayBill = {
  day: RealisticDay;
  units: DayUnits;
  /** Each unit's operations over the day. */
  byUnit: Record<Unit, Ops>;
  total: Ops;
  dollarsPerDay: number;
  /** dollarsPerDay × 30 ÷ (U / 1,000). */
  dollarsPerThousandSubscribersPerMonth: number;
};

export const dollarsOf = (ops: Ops, prices: Prices) => ops.reads * prices.read + ops.writes * prices.write + ops.deletes * prices.delete;

export function dayBill(costs: UnitCosts, day: RealisticDay, prices: Prices = FIRESTORE_LIST_PRICE): DayBill {
  const units = dayUnits(day);
  const unitOps: Record<Unit, Ops> = {
    ...costs,
    // What a match pass reads for its subscribers grows with them (or, for an index, at most as fast).
    matchPass: times(costs.matchPass, costs.subscribers > 0 ? day.subscribers / costs.subscribers : 0),
  };
  const byUnit = Object.fromEntries((Object.keys(units) as Unit[]).map((u) => [u, times(unitOps[u], units[u])])) as Record<Unit, Ops>;
  const total = Object.values(byUnit).reduce(add, NONE);
  const dollarsPerDay = dollarsOf(total, prices);
  return {
    day,
    units,
    byUnit,
    total,
    dollarsPerDay,
    dollarsPerThousandSubscribersPerMonth: day.subscribers > 0 ? (dollarsPerDay * 30) / (day.subscribers / 1000) : 0,
  };
}

const UNIT_LABELS: Record<Unit, string> = {
  run: 'runs (idle share)',
  posting: 'postings',
  matchPass: 'match passes',
  delivery: 'deliveries',
  alert: 'alerts',
  digest: 'digests',
  sweep: 'repair sweep (checks)',
};

const n0 = (n: number) => Math.round(n).toLocaleString('en-US');
const n2 = (n: number) => n.toFixed(2);

/** The bill as Markdown tables: the costs per unit, then the day at each size, then where each day's dollars go. */
export function billLines(costs: UnitCosts, bills: DayBill[], prices: Prices = FIRESTORE_LIST_PRICE): string[] {
  const units = Object.keys(UNIT_LABELS) as Unit[];
  const lines = [
    '| unit of work | reads | writes | deletes (TTL included) |',
    '| --- | ---: | ---: | ---: |',
    ...units.map(
      (u) =>
        `| ${u === 'matchPass' ? `match pass (at U=${n0(costs.subscribers)})` : u === 'run' ? 'run (idle)' : u === 'sweep' ? 'repair sweep, per subscriber' : u} | ${n2(costs[u].reads)} | ${n2(costs[u].writes)} | ${n2(costs[u].deletes)} |`,
    ),
    '',
    '| U | J a day | runs | reads / day | writes / day | deletes / day | $ / day | $ per 1,000 subscribers a month |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...bills.map(
      (b) =>
        `| ${n0(b.day.subscribers)} | ${n0(b.day.postingsPerDay)} | ${b.day.runsPerDay} | ${n0(b.total.reads)} | ${n0(b.total.writes)} | ${n0(b.total.deletes)} | $${b.dollarsPerDay.toFixed(3)} | $${b.dollarsPerThousandSubscribersPerMonth.toFixed(3)} |`,
    ),
    '',
    `| U | ${units.map((u) => UNIT_LABELS[u]).join(' | ')} |`,
    `| ---: | ${units.map(() => '---:').join(' | ')} |`,
    ...bills.map(
      (b) =>
        `| ${n0(b.day.subscribers)} | ${units.map((u) => `${n0(b.units[u])} → $${dollarsOf(b.byUnit[u], prices).toFixed(3)}`).join(' | ')} |`,
    ),
  ];
  return lines;
}

/**
 * Stored data, USD per GiB a month (1 GiB = 2^30 bytes, documents and index entries together,
 * charged daily): $0.18 in nam5 (https://cloud.google.com/firestore/pricing). The location table
 * could not be read from here for us-central1; the regional bill uses the same $0.18, so it is an
 * upper bound there.
 */
export const STORAGE_PRICE_PER_GIB_MONTH = 0.18;
const GIB = 2 ** 30;

export type StorageBill = {
  /** Per kind: bytes a unit of work leaves, how many days they stay, and the GiB a realistic day's steady state holds. */
  byKind: Record<StoredKind, { bytesPerUnit: number; keptDays: number | null; gib: number }>;
  gib: number;
  dollarsPerMonth: number;
  dollarsPerThousandSubscribersPerMonth: number;
};

/**
 * The storage a deployment holds once its retention has filled: each day's deliveries, emails,
 * postings and runs, kept as long as their `expireAt` says (RETENTION_DAYS for the ledger), plus
 * every subscriber's own documents, plus what does not grow at all. Bytes per unit are the
 * bench's own documents, sized by Firestore's rules (stored-bytes.ts), over its own counts.
 */
export function storageBill(stored: StoredBytes, day: RealisticDay, pricePerGiBMonth = STORAGE_PRICE_PER_GIB_MONTH): StorageBill {
  const units = dayUnits(day);
  const perDay: Record<StoredKind, number> = {
    delivery: units.delivery,
    alert: units.alert,
    digest: units.digest,
    posting: units.posting,
    run: units.run,
    subscriber: day.subscribers,
    fixed: 1,
  };
  const byKind = Object.fromEntries(
    (Object.keys(perDay) as StoredKind[]).map((kind) => {
      const s = stored[kind];
      const bytesPerUnit = kind === 'fixed' ? s.bytes : s.units > 0 ? s.bytes / s.units : 0;
      // A kind that expires is held `keptDays` days' worth deep; the subscribers and what is fixed, once.
      const held = s.keptDays === null || kind === 'subscriber' || kind === 'fixed' ? 1 : s.keptDays;
      return [kind, { bytesPerUnit, keptDays: s.keptDays, gib: (perDay[kind] * bytesPerUnit * held) / GIB }];
    }),
  ) as StorageBill['byKind'];
  const gib = Object.values(byKind).reduce((n, k) => n + k.gib, 0);
  const dollarsPerMonth = gib * pricePerGiBMonth;
  return {
    byKind,
    gib,
    dollarsPerMonth,
    dollarsPerThousandSubscribersPerMonth: day.subscribers > 0 ? dollarsPerMonth / (day.subscribers / 1000) : 0,
  };
}

/** Emails a realistic day sends (alerts and digests), as a month of them: what the mail provider bills. */
export const emailsPerMonth = (day: RealisticDay) => {
  const units = dayUnits(day);
  return (units.alert + units.digest) * 30;
};

/**
 * Resend's transactional plans as published (https://resend.com/pricing, read 2026-12-01; see
 * docs/deploy.md): free to 3,000 a month; Pro $20 for 50,000; Scale $90 for 100,000 and $650 for
 * 1,000,000; past a plan, $0.90 per 1,000. The cheapest of them that carries the month, overage
 * included (tiers between those named are not modelled, so this is an upper bound between them).
 */
const RESEND_PLANS = [
  { plan: 'Pro', dollars: 20, included: 50_000 },
  { plan: 'Scale 100k', dollars: 90, included: 100_000 },
  { plan: 'Scale 1M', dollars: 650, included: 1_000_000 },
];
export function resendPerMonth(emails: number): { plan: string; dollars: number } {
  if (emails <= 3_000) return { plan: 'Free', dollars: 0 };
  return RESEND_PLANS.map((p) => ({ plan: p.plan, dollars: p.dollars + (Math.max(0, emails - p.included) / 1_000) * 0.9 })).reduce(
    (a, b) => (b.dollars < a.dollars ? b : a),
  );
}

const KIND_LABELS: Record<StoredKind, string> = {
  delivery: 'deliveries (with near misses, verdicts)',
  alert: 'alert emails',
  digest: 'digest emails',
  posting: 'postings (with their keys)',
  run: 'runs',
  subscriber: 'subscribers (with the match index)',
  fixed: 'the rest (feeds, locks, cursors, limits)',
};

/** The storage bill as Markdown: bytes per unit and days kept, then the steady state at each size. */
export function storageLines(stored: StoredBytes, bills: StorageBill[], days: RealisticDay[]): string[] {
  const kinds = Object.keys(KIND_LABELS) as StoredKind[];
  const kb = (n: number) => `${(n / 1024).toFixed(2)} KB`;
  return [
    '| stored per unit | bytes (index share) | kept |',
    '| --- | ---: | ---: |',
    ...kinds.map((k) => {
      const s = stored[k];
      const per = k === 'fixed' ? s.bytes : s.units > 0 ? s.bytes / s.units : 0;
      const share = s.bytes > 0 ? Math.round((s.indexBytes / s.bytes) * 100) : 0;
      return `| ${KIND_LABELS[k]}${k === 'fixed' ? ' (in all)' : ''} | ${kb(per)} (${share}% index) | ${s.keptDays === null ? 'until changed' : `${s.keptDays.toFixed(0)} days`} |`;
    }),
    '',
    `| U | ${kinds.map((k) => KIND_LABELS[k]).join(' | ')} | GiB | $ a month | $ per 1,000 subscribers a month |`,
    `| ---: | ${kinds.map(() => '---:').join(' | ')} | ---: | ---: | ---: |`,
    ...bills.map(
      (b, i) =>
        `| ${n0(days[i].subscribers)} | ${kinds.map((k) => b.byKind[k].gib.toFixed(2)).join(' | ')} | ${b.gib.toFixed(1)} | $${b.dollarsPerMonth.toFixed(2)} | $${b.dollarsPerThousandSubscribersPerMonth.toFixed(3)} |`,
    ),
  ];
}
