import type { DocumentSnapshot } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import type { MatchVerdict } from '../../lib/verdicts/match-verdict';
import { decideClaim } from '../../lib/verdicts/verdict-claim';
import { PROMPT_VERSION } from '../../lib/verdicts/wire';

/** What a read verdict calls for, as the planner decides it: one row per case, no store needed. */

const NOW = new Date('2026-12-01T08:00:00Z');
const later = new Date(NOW.getTime() + 60_000);
const earlier = new Date(NOW.getTime() - 1);

const verdict = (fields: Partial<MatchVerdict>): MatchVerdict => ({
  uid: 'u',
  jobId: 'j',
  state: 'scored',
  fit: 80,
  reason: 'fits',
  model: 'm',
  promptVersion: PROMPT_VERSION,
  profileVersion: 2,
  leaseUntil: null,
  runId: 'r',
  createdAt: NOW,
  scoredAt: NOW,
  expireAt: NOW,
  ...fields,
});
const read = (m: MatchVerdict | null) => ({ exists: m !== null, data: () => m ?? undefined }) as unknown as DocumentSnapshot<MatchVerdict>;

const scored = verdict({});
const cases: [string, MatchVerdict | null, ReturnType<typeof decideClaim>][] = [
  ['absent: claimed with create()', null, 'claim'],
  ['scored for this profile and prompt: used', scored, { use: scored }],
  ['scored for an older profile: claimed again', verdict({ profileVersion: 1 }), 'claim'],
  ['scored under an older prompt: claimed again', verdict({ promptVersion: PROMPT_VERSION - 1 }), 'claim'],
  ['scored for a newer profile: superseded', verdict({ profileVersion: 3 }), 'superseded'],
  ['scored under a newer prompt: superseded', verdict({ promptVersion: PROMPT_VERSION + 1 }), 'superseded'],
  ['another run scoring it, lease live: waited for', verdict({ state: 'scoring', fit: null, reason: null, leaseUntil: later }), 'wait'],
  [
    'another run scoring it, lease expired: taken over',
    verdict({ state: 'scoring', fit: null, reason: null, leaseUntil: earlier }),
    'claim',
  ],
  [
    'another run scoring it, lease ending now: taken over',
    verdict({ state: 'scoring', fit: null, reason: null, leaseUntil: NOW }),
    'claim',
  ],
  ['scored without a reason (never written so): claimed again', verdict({ reason: null }), 'claim'],
];

describe('decideClaim', () => {
  it.each(cases)('%s', (_, stored, expected) => {
    expect(decideClaim(read(stored), { id: 'u', profileVersion: 2 }, NOW)).toEqual(expected);
  });
});
