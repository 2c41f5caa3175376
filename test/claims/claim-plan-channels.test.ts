import { describe, expect, it } from 'vitest';
import {
  decideClaim,
  MAX_ALERT_ITEMS,
  planClaim,
  type ClaimCandidate,
  type DigestDue,
  type MessagesFor,
} from '../../lib/claims/claim-plan';
import type { StoredPosting } from '../../lib/feeds/postings-collection';
import type { EmailPayload } from '../../lib/mail/email-payload';
import { deliveryId } from '../../lib/ledger/delivery';
import { newMessageRow } from '../../lib/messages/message-row';
import { alertEmailKey } from '../../lib/outbox/outbox-row';
import type { IndexedSubscriber } from '../../lib/subscribers/match-index';
import type { DeliveryMode } from '../../lib/subscribers/subscriber';

/**
 * Where a claim puts its channels' messages (pure): with the deliveries they carry, in one atomic
 * write, whatever the subscriber's email cadence. test/messages/channel-messages.emulator.test.ts
 * checks the writes land as planned.
 */

const NOW = new Date('2026-12-02T09:00:00Z');
const EXPIRE = new Date('2027-01-01T09:00:00Z');
const DIGEST: DigestDue = { dueAt: new Date('2026-12-03T08:00:00Z'), period: '2026-12-03' };
const PAYLOAD: EmailPayload = { from: 'scout@example.com', to: 'a@example.com', subject: 's', html: '<p>h</p>', text: 't', headers: {} };

const subscriberOf = (mode: DeliveryMode) => ({ id: `uid-${mode}`, mode }) as IndexedSubscriber;
const candidates = (mode: DeliveryMode, n: number): ClaimCandidate[] =>
  Array.from({ length: n }, (_, i) => ({
    subscriber: subscriberOf(mode),
    posting: { id: `job-${i}`, runId: 'earlier' } as StoredPosting,
    score: 100 - i,
    reasons: ['matched'],
  }));

/** One message per call, named after the set it carries, so a test sees what each message was planned from. */
function recordingMessages(): { messagesFor: MessagesFor; calls: { items: string[]; ids: string[]; setKey: string }[] } {
  const calls: { items: string[]; ids: string[]; setKey: string }[] = [];
  const messagesFor: MessagesFor = (items, ids, setKey) => {
    calls.push({ items: items.map((c) => c.posting.id), ids, setKey });
    const row = newMessageRow({
      uid: 'u',
      channelId: 'ch1',
      channel: 'slack',
      kind: 'alert',
      deliveryIds: ids,
      body: '{}',
      runId: 'r',
      now: NOW,
      expireAt: EXPIRE,
    });
    return [{ key: `${setKey}_ch1`, row }];
  };
  return { messagesFor, calls };
}

const plan = (mode: DeliveryMode, n: number, messagesFor?: MessagesFor) => {
  const fresh = candidates(mode, n);
  const decision = decideClaim({ fresh, mode, digest: mode === 'daily' || mode === 'weekly' ? DIGEST : null });
  return planClaim({
    decision,
    subscriber: subscriberOf(mode),
    composed: mode === 'instant' ? { payload: PAYLOAD, shown: Math.min(n, MAX_ALERT_ITEMS) } : null,
    runId: 'run-1',
    now: NOW,
    expireAt: EXPIRE,
    messagesFor,
  });
};

describe("a claim's channel messages go with the deliveries they carry", () => {
  it("an instant subscriber's messages join the email alert's atomic write, over the alert's own set and key", () => {
    const { messagesFor, calls } = recordingMessages();
    const claimed = plan('instant', 3, messagesFor);
    expect(claimed.alert?.messages.map((m) => m.key)).toEqual([`${claimed.alert!.emailKey}_ch1`]);
    expect(calls).toEqual([{ items: ['job-0', 'job-1', 'job-2'], ids: claimed.alert!.row.deliveryIds, setKey: claimed.alert!.emailKey }]);
    expect(claimed.channelAlert).toBeNull();
  });

  it("a daily subscriber's instant channel gets the run's best MAX_ALERT_ITEMS, created with their queued deliveries; the rest stand alone", () => {
    const { messagesFor, calls } = recordingMessages();
    const claimed = plan('daily', MAX_ALERT_ITEMS + 5, messagesFor);
    const carried = claimed.channelAlert!.carried;
    expect(carried).toHaveLength(MAX_ALERT_ITEMS);
    expect(carried.every((d) => d.status === 'queued')).toBe(true);
    expect(claimed.creates).toHaveLength(5);
    expect(claimed.queued).toBe(MAX_ALERT_ITEMS + 5);
    const ids = carried.map((d) => deliveryId(d.uid, d.jobId));
    expect(calls[0].setKey).toBe(alertEmailKey('uid-daily', ids));
    expect(calls[0].items).toEqual(Array.from({ length: MAX_ALERT_ITEMS }, (_, i) => `job-${i}`));
  });

  it("a feed subscriber's instant channel carries their published deliveries", () => {
    const { messagesFor } = recordingMessages();
    const claimed = plan('feed', 2, messagesFor);
    expect(claimed.channelAlert!.carried.map((d) => d.status)).toEqual(['sent', 'sent']);
    expect(claimed.creates).toEqual([]);
  });

  it('without a channel, a claim plans exactly what it planned before channels', () => {
    for (const mode of ['instant', 'daily', 'weekly', 'feed'] as const) {
      const none = plan(mode, 4, () => []);
      const absent = plan(mode, 4);
      expect(none).toEqual(absent);
      expect(absent.channelAlert).toBeNull();
      if (absent.alert) expect(absent.alert.messages).toEqual([]);
    }
  });
});
