import type { Firestore } from 'firebase-admin/firestore';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { postingsCollection } from '../../lib/feeds/postings-collection';
import { createFirestore } from '../../lib/store/firestore';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { matchRef, type MatchVerdict } from '../../lib/verdicts/match-verdict';
import { verdictLines } from '../../scripts/demo/verdicts-table';

let db: Firestore;
const now = new Date('2026-11-30T06:00:00Z');

beforeAll(() => {
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  process.env.METADATA_SERVER_DETECTION = 'none';
  db = createFirestore({ projectId: `demo-verdicts-${Date.now()}-${process.pid}` });
});

const posting = (id: string, title: string) =>
  postingsCollection(db).doc(id).set({
    id,
    source: 'sample',
    guid: null,
    title,
    url: null,
    description: '',
    budget: null,
    skills: [],
    publishedAt: null,
    matchState: 'matched',
    runId: 'r1',
    fetchedAt: now,
    expireAt: now,
  });

const verdict = (email: string, jobId: string, fields: Partial<MatchVerdict>) =>
  matchRef(db, subscriberId(email), jobId).set({
    uid: subscriberId(email),
    jobId,
    state: 'scored',
    fit: 50,
    reason: 'A reason.',
    model: 'scout-fake-1',
    promptVersion: 1,
    profileVersion: 1,
    leaseUntil: null,
    runId: 'r1',
    createdAt: now,
    scoredAt: now,
    expireAt: now,
    ...fields,
  });

describe('npm run demo -- --ai: the verdicts table', () => {
  it("shows each subscriber's answered verdicts from matches/, best fit first, and leaves claims still scoring out", async () => {
    await posting('sample_a', 'Firebase / Firestore expert to fix rules');
    await posting('sample_b', 'Flutter developer to finish MVP for a food delivery app, with a very long title');
    await verdict('tomas@example.com', 'sample_b', { fit: 20, reason: 'Matches "firebase" (1 of 5 terms).' });
    await verdict('tomas@example.com', 'sample_a', { fit: 100, reason: 'Matches "firebase", "firestore" (2 of 2 terms).' });
    await verdict('tomas@example.com', 'sample_c', { state: 'scoring', fit: null, reason: null, leaseUntil: now });
    await verdict('maya@example.com', 'sample_gone', { fit: 64, reason: 'Its posting has expired.' });

    expect(await verdictLines(db, ['tomas@example.com', 'maya@example.com', 'lea@example.com'])).toEqual([
      '  tomas@example.com: 2 verdicts',
      '    fit  model         posting                                           reason',
      '    100  scout-fake-1  Firebase / Firestore expert to fix rules          Matches "firebase", "firestore" (2 of 2 terms).',
      '    20   scout-fake-1  Flutter developer to finish MVP for a food deli…  Matches "firebase" (1 of 5 terms).',
      '  maya@example.com: 1 verdict',
      '    fit  model         posting      reason',
      '    64   scout-fake-1  sample_gone  Its posting has expired.',
      '  lea@example.com: 0 verdicts',
    ]);
  });
});
