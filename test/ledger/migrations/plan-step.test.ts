import { describe, expect, it } from 'vitest';
import type { Migration } from '../../../lib/ledger/migrations/migration';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../lib/ledger/migrations/migrations';
import { planCheckpoint, planClaim, planFinish, planRelease, STEP_LEASE_MS } from '../../../lib/ledger/migrations/plan-step';
import { schemaNotice, standingOf, type SchemaState } from '../../../lib/ledger/migrations/schema-version';

const NOW = new Date('2026-12-06T10:00:00Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);
const step = (version: number, name: string): Migration => ({ version, name, changes: '', why: '', apply: async () => ({ changed: 0 }) });
const THREE = [step(1, 'one'), step(2, 'two'), step(3, 'three')];

const state = (version: number, applying: Partial<SchemaState['applying']> | null = null): SchemaState => ({
  version,
  origin: 'migrated',
  applying: applying
    ? { version: version + 1, name: 'x', owner: 'other', leaseUntil: later(60_000), startedAt: NOW, after: null, ...applying }
    : null,
  applied: [],
});

describe('planClaim: which step a run of `scout migrate` takes', () => {
  const cases: [string, SchemaState | null, string, Record<string, unknown>][] = [
    ['no schema document: step 1, created at version 0', null, 'me', { kind: 'claim', resumeAfter: null }],
    ['at 1 of 3: step 2', state(1), 'me', { kind: 'claim', resumeAfter: null }],
    ['at 3 of 3: current', state(3), 'me', { kind: 'current', version: 3 }],
    ['at 4 of 3: ahead, nothing taken', state(4), 'me', { kind: 'ahead', version: 4 }],
    ['step 2 leased to another run, lease live: busy', state(1, { owner: 'other' }), 'me', { kind: 'busy', version: 1 }],
    [
      'step 2 leased to another run whose lease lapsed: taken, from its checkpoint',
      state(1, { leaseUntil: NOW, after: 'b' }),
      'me',
      {
        kind: 'claim',
        resumeAfter: 'b',
      },
    ],
    [
      'step 2 leased to this very run: taken again, from its checkpoint',
      state(1, { owner: 'me', after: 'c' }),
      'me',
      {
        kind: 'claim',
        resumeAfter: 'c',
      },
    ],
  ];
  it.each(cases)('%s', (_name, read, owner, expected) => {
    expect(planClaim(read, { owner, now: NOW, migrations: THREE })).toMatchObject(expected);
  });

  it('creates the document when there is none, updates it otherwise, leasing the step to the run', () => {
    const created = planClaim(null, { owner: 'me', now: NOW, migrations: THREE });
    expect(created).toMatchObject({
      migration: { version: 1 },
      write: { create: { version: 0, applying: { version: 1, name: 'one', owner: 'me', leaseUntil: later(STEP_LEASE_MS), after: null } } },
    });
    const updated = planClaim(state(2), { owner: 'me', now: NOW, migrations: THREE, leaseMs: 1_000 });
    expect(updated).toMatchObject({ write: { update: { applying: { version: 3, owner: 'me', leaseUntil: later(1_000) } } } });
  });

  it('a lapsed lease of an earlier step is not resumed from into a later one', () => {
    const stale = state(2, { version: 2, leaseUntil: NOW, after: 'z' });
    expect(planClaim(stale, { owner: 'me', now: NOW, migrations: THREE })).toMatchObject({ kind: 'claim', resumeAfter: null });
  });
});

describe('the step’s later writes are the holder’s only', () => {
  const held = state(1, { owner: 'me', after: 'a' });
  it.each([
    [
      'the holder checkpoints: where it is, and its lease renewed',
      held,
      'me',
      2,
      { 'applying.after': 'b', 'applying.leaseUntil': later(STEP_LEASE_MS) },
    ],
    ['a run that lost the step to another: nothing', held, 'other', 2, null],
    ['the same owner on another step: nothing', held, 'me', 3, null],
    ['no document: nothing', null, 'me', 2, null],
  ] as const)('%s', (_name, read, owner, version, expected) => {
    expect(planCheckpoint(read, { owner, version, after: 'b', now: NOW })).toEqual(expected);
  });

  it('a checkpoint without a place keeps the last one', () => {
    expect(planCheckpoint(held, { owner: 'me', version: 2, after: null, now: NOW })).toMatchObject({ 'applying.after': 'a' });
  });

  it('finishing moves the version on, frees the step and records it once; a run that lost it finishes nothing', () => {
    const done = planFinish(held, { owner: 'me', version: 2, now: NOW, changed: 7 });
    expect(done).toEqual({ version: 2, applying: null, applied: [{ version: 2, name: 'x', at: NOW, owner: 'me', changed: 7 }] });
    expect(planFinish(held, { owner: 'other', version: 2, now: NOW, changed: 7 })).toBeNull();
  });

  it('a failed step’s lease ends now, its checkpoint kept for the next run', () => {
    expect(planRelease(held, { owner: 'me', version: 2, now: NOW })).toEqual({ 'applying.leaseUntil': NOW });
    expect(planRelease(held, { owner: 'other', version: 2, now: NOW })).toBeNull();
  });
});

describe('the migrations and the schema version', () => {
  it('are numbered 1, 2, 3… in the order they run, each with its name, what it changes and why', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(MIGRATIONS.map((m) => m.name)).toEqual(['per-pair-ledger', 'digest-due', 'shard-bucket', 'min-pay', 'queries']);
    for (const m of MIGRATIONS) expect([m.changes.length > 0, m.why.length > 0]).toEqual([true, true]);
  });

  it.each([
    [2, 4, 'behind', /schema version 2 and this code needs 4: run `scout migrate`/],
    [4, 4, 'current', null],
    [5, 4, 'ahead', /newer than this code's 4/],
  ] as const)('a store at %i against code at %i is %s', (stored, code, standing, notice) => {
    expect(standingOf(stored, code)).toBe(standing);
    if (notice) expect(schemaNotice(stored, code)).toMatch(notice);
    else expect(schemaNotice(stored, code)).toBeNull();
  });
});
