import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelFake, type ModelFake, type RecordedRequest } from '../../scripts/model-fake/server';
import { readCounterExamples } from '../../lib/verdicts/counter-examples';
import { MAX_FEEDBACK_EXCERPT_LENGTH } from '../../lib/ledger/feedback';
import { recordNotAFit } from '../../lib/feedback/record-not-a-fit';
import { silentLogger } from '../../lib/runtime/logger';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createTokenReservation, newRunModelUsage } from '../../lib/verdicts/ai-usage';
import { fakeVerdictClient } from '../support/fake-verdict-client';
import { scoreOnce, type ScoreOnceDeps } from '../../lib/verdicts/score-once';
import { createHarness, type Harness } from '../support/harness';
import { putPosting } from '../support/postings';

/**
 * The last few "not a fit" postings reach the model as counter-examples: in a user message of
 * their own before the last one (which stays exactly {subscriber, postings}), newest first, and
 * with no email address in them: not the subscriber's, and not one a posting carried. Requests are
 * read back from the fake model server itself (GET /__requests).
 */

let h: Harness;
let fake: ModelFake;

beforeAll(async () => {
  fake = await startModelFake({ port: 0 });
  h = await createHarness();
});
afterAll(async () => {
  await fake.close();
  await h.close();
});

const T0 = new Date('2026-11-30T06:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
const ADDRESS = /[^\s@"]+@[^\s@"]+\.[a-z]{2,}/i;

async function subscriberWithFeedback(email: string, count: number) {
  const uid = await h.subscribe({ email, keywords: ['react'], excludes: ['drupal'] });
  for (let i = 0; i < count; i++) {
    const posting = await putPosting(h.db, {
      id: `sample_nf${i}_${randomBytes(3).toString('hex')}`,
      title: `WordPress gig ${i}`,
      description: `Theme work ${i}. Send your CV to hiring${i}@agency.example or call.`,
      now: T0,
    });
    const result = await recordNotAFit(h.db, { uid, jobId: posting.id, now: minutes(i), retentionDays: 30 });
    expect(result).toMatchObject({ ok: true, alreadyRecorded: false });
  }
  return uid;
}

describe('readCounterExamples', () => {
  it('gives the latest five, newest first, title and excerpt only, addresses taken out', async () => {
    const uid = await subscriberWithFeedback('ada@example.com', 7);
    const examples = await readCounterExamples(h.db, uid);
    expect(examples.map((e) => e.title)).toEqual([
      'WordPress gig 6',
      'WordPress gig 5',
      'WordPress gig 4',
      'WordPress gig 3',
      'WordPress gig 2',
    ]);
    for (const example of examples) {
      expect(Object.keys(example).sort()).toEqual(['description', 'title']);
      expect(example.description).toMatch(/^Theme work \d\. Send your CV to \[email\] or call\.$/);
      expect(example.description.length).toBeLessThanOrEqual(MAX_FEEDBACK_EXCERPT_LENGTH);
    }
    expect(await readCounterExamples(h.db, uid, 2)).toEqual(examples.slice(0, 2));
    expect(await readCounterExamples(h.db, subscriberId('nobody@example.com'))).toEqual([]);
  });
});

describe('counter-examples on the wire', () => {
  it('reach the model before the last message, which stays {subscriber, postings}, and carry no email address', async () => {
    const email = 'grace.hopper@example.com';
    const uid = await subscriberWithFeedback(email, 3);
    const apiKey = `sk-feedback-${randomBytes(6).toString('hex')}`;
    const deps: ScoreOnceDeps = {
      db: h.db,
      client: fakeVerdictClient(fake, apiKey),
      config: { tuning: { AI_MAX_CALLS_PER_RUN: 50 }, RETENTION_DAYS: 30 },
      clock: () => new Date(),
      log: silentLogger,
      usage: newRunModelUsage(),
      tokens: createTokenReservation({
        db: h.db,
        runId: 'test-run',
        budget: 1_000_000_000,
        retentionDays: 30,
        clock: () => new Date(),
        leaseMs: 600_000,
      }),
    };
    const counterExamples = await readCounterExamples(h.db, uid);
    const postings = [1, 2, 3, 4, 5].map((i) => ({
      id: `sample_new${i}`,
      title: `React job ${i}`,
      description: 'Remote.',
      budget: null,
      source: 'sample',
    }));
    const subscriber = {
      id: uid,
      email,
      keywords: ['react'],
      excludes: ['drupal'],
      minPay: { fixed: null, hourly: null, yearly: null },
      about: 'Frontend',
      profileVersion: 1,
    };
    const outcomes = await scoreOnce(deps, { runId: 'run-feedback', subscriber: { ...subscriber, counterExamples }, postings });
    expect([...outcomes.values()].every((o) => o.kind === 'verdict')).toBe(true);

    const res = await fetch(`${fake.url}/__requests?apiKey=${encodeURIComponent(apiKey)}`);
    const { requests } = (await res.json()) as { requests: RecordedRequest[] };
    // Five postings, one a request: five requests, each with the counter-examples.
    expect(requests).toHaveLength(postings.length);
    for (const request of requests) {
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'user']);
      expect(JSON.parse(messages[2].content)).toEqual({
        notAFit: ['WordPress gig 2', 'WordPress gig 1', 'WordPress gig 0'].map((title, i) => ({
          title,
          description: `Theme work ${2 - i}. Send your CV to [email] or call.`,
        })),
      });
      const last = JSON.parse(messages.at(-1)!.content) as Record<string, unknown>;
      expect(Object.keys(last)).toEqual(['posting']);

      const raw = JSON.stringify(request.body);
      expect(raw).not.toMatch(ADDRESS);
      expect(raw).not.toContain(uid);
    }
  });
});
