import { afterEach, describe, expect, it } from 'vitest';
import { runCycle } from '../../lib/cycle/run-cycle';
import { createRunContext } from '../../lib/cycle/run-context';
import { claimDeliveries } from '../../lib/claims/claim-deliveries';
import { flushDueDigests } from '../../lib/claims/flush-due-digests';
import type { EmailPayload } from '../../lib/mail/email-payload';
import type { CyclePhase } from '../../lib/ledger/runs';
import { InjectedCrash, noFailpoints, type Failpoint } from '../../lib/runtime/failpoints';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { instrumentFirestore, type CountsByCollection } from '../../scripts/bench/firestore-counter';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { createHarness, type Harness } from '../support/harness';
import { expectBatchesWhole } from '../support/batches';

/**
 * The rows a run creates itself are created leased and packed into their send batches, and
 * sent as they land (lib/outbox/run-sender.ts): one read and one write per email, every guarantee of
 * the dispatcher kept — opt-outs re-read right before the send, the lease fenced by version, a
 * crashed batch resent whole under its key.
 */
const NOW = '2026-11-30T06:00:00Z';
let h: Harness;
afterEach(async () => h?.close());

async function subscribers(n: number, mode: 'instant' | 'daily') {
  const emails = Array.from({ length: n }, (_, i) => `${mode}${i}@example.com`);
  await Promise.all(emails.map((email) => h.subscribe({ email, keywords: ['react'], mode })));
  return emails;
}

async function statuses() {
  const counts: Record<string, number> = {};
  for (const d of (await h.db.collection('emails').get()).docs) counts[d.get('status')] = (counts[d.get('status')] ?? 0) + 1;
  return counts;
}

const perRecipient = async () => {
  const counts = new Map<string, number>();
  for (const m of await h.inbox()) counts.set(m.to[0], (counts.get(m.to[0]) ?? 0) + 1);
  return counts;
};

/** Reads and writes by collection in the phases after matching (claim, flush, dispatch), where the sending happens. */
async function countSending(run: (trace: NonNullable<Parameters<typeof runCycle>[0]['trace']>) => Promise<unknown>) {
  const counter = instrumentFirestore();
  const totals: CountsByCollection = {};
  try {
    await run(async <T>(phase: CyclePhase, step: () => Promise<T>) => {
      if (phase !== 'claim' && phase !== 'flush' && phase !== 'dispatch') return step();
      const before = counter.byCollection();
      try {
        return await step();
      } finally {
        for (const [name, after] of Object.entries(counter.byCollection())) {
          const was = before[name] ?? { reads: 0, writes: 0, deletes: 0 };
          const sum = (totals[name] ??= { reads: 0, writes: 0, deletes: 0 });
          sum.reads += after.reads - was.reads;
          sum.writes += after.writes - was.writes;
          sum.deletes += after.deletes - was.deletes;
        }
      }
    });
  } finally {
    counter.restore();
  }
  return (name: string) => totals[name] ?? { reads: 0, writes: 0, deletes: 0 };
}

/** An email with nothing in it but its recipient: the compose-batch tests compose with it instead of the templates. */
const plainEmail = (to: string, subject: string): EmailPayload => ({
  from: 'a@scout.test',
  to,
  subject,
  html: `<p>${subject}</p>`,
  text: subject,
  headers: {},
});

describe('rows the run creates are sent as they land', () => {
  it('120 alerts cost one read (the subscriber) and one write (the record) each to send, in 2 packed send batches', async () => {
    h = await createHarness();
    await subscribers(120, 'instant');
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    const counts = await countSending((trace) =>
      runCycle({ ...h.deps, failpoint: noFailpoints, trace }, { now: new Date(NOW), dryRun: false, trigger: 'test' }),
    );
    expect(await statuses()).toEqual({ sent: 120 });
    expect([...(await perRecipient()).values()]).toEqual(Array(120).fill(1));
    // Sending: each subscriber re-read once; the outbox written twice a row (its leased create, its record).
    expect(counts('users').reads).toBe(120);
    expect(counts('emails').writes).toBe(240);
    // The dispatcher's passes over what earlier runs left (held, abandoned, pending) find nothing: a query reads at least 1.
    expect(counts('emails').reads).toBeLessThanOrEqual(3);
    const rows = (await h.db.collection('emails').get()).docs;
    expect(new Set(rows.map((d) => d.get('batchKey'))).size).toBe(2);
    expect(rows.every((d) => d.get('attempts') === 1 && d.get('leaseOwner') !== null)).toBe(true);
  });

  it('100 digests at the flush: one subscriber read and one record each, the items marked after the send', async () => {
    h = await createHarness();
    await subscribers(100, 'daily');
    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
    await h.run({ now: NOW });
    const counts = await countSending((trace) =>
      runCycle({ ...h.deps, failpoint: noFailpoints, trace }, { now: new Date('2026-11-30T08:05:00Z'), dryRun: false, trigger: 'test' }),
    );
    expect(await statuses()).toEqual({ sent: 100 });
    expect([...(await perRecipient()).values()]).toEqual(Array(100).fill(1));
    // The flush reads each subscriber once to plan, the sender once more right before the send (opt-outs win).
    expect(counts('users').reads).toBe(200);
    expect(counts('emails').writes).toBe(200);
    expect(counts('deliveries').writes).toBe(200);
  });

  it('200 five-item digests in packed send batches of 100: each send batch commits on its own, inside the request size (two together would not fit)', async () => {
    h = await createHarness();
    await subscribers(200, 'daily');
    h.serveFeed(postingsAbout('react', 5, { at: new Date(NOW) }));
    await h.run({ now: NOW });
    const run = await h.run({ now: '2026-11-30T08:05:00Z' });
    expect(run).toMatchObject({ digests: 200, providerRequests: 2, partial: false });
    expect(await statuses()).toEqual({ sent: 200 });
  }, 120_000);

  it('a subscriber batch written in many compose batches still fills its provider requests: an open last send batch waits for the next compose batch', async () => {
    h = await createHarness();
    await subscribers(150, 'instant');
    const ids = Array.from({ length: 150 }, (_, i) => subscriberId(`instant${i}@example.com`));
    const run = createRunContext({ ...h.deps, failpoint: noFailpoints }, { now: new Date(NOW), dryRun: false, trigger: 'test' });
    const subscribersNow = (await h.db.collection('users').get()).docs.map((d) => ({ ...d.data(), id: d.id }));
    const posting = { id: 'rss_waves', title: 'React', url: 'https://jobs.example/1', runId: 'run-feed' };
    const alert = async (s: { email: string }) => plainEmail(s.email, 'React');
    // A one-byte compose budget: each step of 16 renders is a compose batch of its own, ten of them for 150 alerts.
    const claimed = await claimDeliveries(
      { db: h.db, composeAlert: alert, outOfTime: () => false, runSender: run.runSender },
      {
        candidates: subscribersNow.map((subscriber) => ({
          subscriber: subscriber as never,
          posting: posting as never,
          score: 70,
          reasons: ['keyword: react'],
        })),
        runId: run.runId,
        now: new Date(NOW),
        retentionDays: 30,
        digestHourUtc: 8,
        composeBatchBytes: 1,
      },
    );
    const sent = await run.runSender!.drain();

    expect(claimed).toMatchObject({ alertEmails: 150, gaveUp: 0 });
    expect(sent.sent.alert).toBe(150);
    expect(sent.batches).toBe(2);
    expect([...(await perRecipient()).values()]).toEqual(Array(150).fill(1));
    expect((await h.inbox()).map((m) => m.to[0]).sort()).toEqual(Array.from({ length: 150 }, (_, i) => `instant${i}@example.com`).sort());
    // Two requests (100 + 50), as one compose batch would make: not one per compose batch.
    const rows = (await h.db.collection('emails').get()).docs;
    expect(rows.map((d) => d.get('uid')).sort()).toEqual([...ids].sort());
    expect(new Set(rows.map((d) => d.get('batchKey'))).size).toBe(2);
  });

  it('a flush written in many compose batches still fills its provider requests, and each digest goes once', async () => {
    h = await createHarness();
    await subscribers(130, 'daily');
    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
    await h.run({ now: NOW });
    const at = new Date('2026-11-30T08:05:00Z');
    const run = createRunContext({ ...h.deps, failpoint: noFailpoints }, { now: at, dryRun: false, trigger: 'test' });
    const digest = async ({ subscriber }: { subscriber: { email: string } }) => plainEmail(subscriber.email, 'digest');

    const flushed = await flushDueDigests(
      { db: h.db, composeDigest: digest, outOfTime: () => false, runSender: run.runSender },
      { now: at, runId: run.runId, digestHourUtc: 8, maxItems: 20, retentionDays: 30, composeBatchBytes: 1 },
    );
    const sent = await run.runSender!.drain();

    expect(flushed).toMatchObject({ due: 130, claimed: 130, gaveUp: 0 });
    expect(sent.sent.digest).toBe(130);
    expect(sent.batches).toBe(2);
    expect([...(await perRecipient()).values()]).toEqual(Array(130).fill(1));
    const rows = (await h.db.collection('emails').where('kind', '==', 'digest').get()).docs;
    expect(rows).toHaveLength(130);
    expect(new Set(rows.map((d) => d.get('batchKey'))).size).toBe(2);
  });

  it('an opt-out that lands between the claim and the send: skipped, and the send batch packed again without it, so no recovery can carry it', async () => {
    h = await createHarness();
    const emails = await subscribers(30, 'instant');
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    // The claim has planned every alert (from the match index); the subscriber leaves before the commit.
    const leaveBeforeCommit: Failpoint = async (name) => {
      if (name === 'before-delivery-commit') await h.db.collection('users').doc(subscriberId(emails[7])).update({ status: 'unsubscribed' });
    };
    const run = await h.run({ now: NOW, failpoint: leaveBeforeCommit });
    expect(run).toMatchObject({ instantEmails: 29 });
    const received = await perRecipient();
    expect(received.has(emails[7])).toBe(false);
    expect(received.size).toBe(29);
    const rows = (await h.db.collection('emails').get()).docs;
    const gone = rows.find((d) => d.get('uid') === subscriberId(emails[7]))!;
    expect(gone.get('status')).toBe('skipped');
    expect(gone.get('lastError')).toBe('subscriber_unsubscribed');
    // Every send batch that went out was packed with only members that went out with it: its key is
    // the hash of exactly the sent rows that carry it, so it never listed the skipped one.
    const sent = rows.filter((d) => d.get('status') === 'sent');
    expectBatchesWhole(sent);
    expect(sent.map((d) => d.get('batchKey'))).not.toContain(gone.get('batchKey'));
    // Later runs send nothing more.
    await h.run({ now: '2026-11-30T06:15:00Z' });
    expect((await h.inbox()).length).toBe(29);
  });

  it('a crash after a packed send batch was created, before its send: nothing goes out while the lease lives; then the batch once, whole, under its key', async () => {
    h = await createHarness();
    const emails = await subscribers(150, 'instant');
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    let crashed = false;
    const crashOnce: Failpoint = async (name, ctx) => {
      if (name === 'before-send' && ctx?.emailKey?.startsWith('batch_') && !crashed) {
        crashed = true;
        throw new InjectedCrash(name);
      }
    };
    await expect(h.run({ now: NOW, failpoint: crashOnce })).rejects.toThrow(InjectedCrash);
    expect((await statuses()).sending).toBeGreaterThan(0);
    // The lease (2 minutes from the create) still lives: a run a minute later leaves the batch alone.
    await h.run({ now: '2026-11-30T06:01:00Z' });
    expect((await statuses()).sending).toBeGreaterThan(0);
    await h.run({ now: '2026-11-30T06:15:00Z' });
    const received = await perRecipient();
    expect(received.size).toBe(emails.length);
    expect([...received.values()].every((n) => n === 1)).toBe(true);
    expect(await statuses()).toEqual({ sent: 150 });
  });

  it('five runs at once over the same new postings (lock defeated): each alert once, every send batch packed whole', async () => {
    h = await createHarness();
    const emails = await subscribers(150, 'instant');
    h.serveFeed(postingsAbout('react', 1, { at: new Date(NOW) }));
    await Promise.all(Array.from({ length: 5 }, (_, i) => h.run({ now: NOW, lockName: `defeated-${i}` })));
    const received = await perRecipient();
    expect(received.size).toBe(emails.length);
    expect([...received.values()].every((n) => n === 1)).toBe(true);
    expect(await statuses()).toEqual({ sent: 150 });
    expectBatchesWhole((await h.db.collection('emails').get()).docs);
  });
});
