import type { Firestore } from 'firebase-admin/firestore';
import type { ReceivedRequest } from '../../scripts/channel-stand-in/server';
import { CHANNEL_KINDS, type ChannelKind } from '../../lib/channels/channel';
import { deliveriesCollection, deliveryId } from '../../lib/ledger/delivery';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import { messageKey, messagesCollection, webhookMessageId, type MessageKind, type MessageRow } from '../../lib/messages/message-row';
import { UNADDRESSED_CHAT } from '../../lib/messages/plan-messages';
import { sha256Hex } from '../../lib/store/short-hash';

/** What the channel checker counts, per channel kind and message kind (docs/channels.md "The ledger"). */
export type ChannelCounts = {
  /** Message rows created: what the ledger promised to send. */
  attempted: number;
  /** Rows the platform took at least once. */
  received: number;
  /** Due (not skipped, not for a gone channel), never arrived, and not visibly failed: the ledger's silent loss. */
  lost: number;
  /** Copies past the first a subscriber sees: for a webhook, distinct webhook-ids (its receiver drops a repeated one). */
  duplicated: number;
  /** Never arrived, and the row says so: `failed` or `dead` with a reason. */
  failedVisibly: number;
  /** Never arrived because the destination answered "gone" (the row failed `gone: …`). */
  gone: number;
  /** Not sent, with why (an opt-out, a disabled channel): not due. */
  skipped: number;
  /** A webhook's repeats of a webhook-id it already had: retries its receiver drops. */
  repeatsDroppedByReceiver: number;
  /** Bodies the platform took that match no row (for a webhook: an id whose body is not the row's). */
  unexpected: number;
};

export type ChannelReport = {
  counts: Record<ChannelKind, Record<MessageKind, ChannelCounts>>;
  /** Rows not final after the settle runs. */
  stuck: string[];
  /** Instant alerts a chat platform showed twice: never allowed. */
  repeatedAlerts: string[];
  /**
   * Digest repeats on Slack, Discord or Telegram beyond what a lost answer explains: each copy past
   * the first needs a send whose answer was lost after the platform took it (a crash after the
   * send, or a connection the platform dropped after taking the message).
   */
  unexplainedDigestRepeats: string[];
  /** Digest repeats that a lost answer explains, by row: the at-least-once docs/channels.md allows. */
  explainedDigestRepeats: string[];
  /** Deliveries carried by two rows of one kind for one channel: the ledger's own invariant. */
  carriedTwice: string[];
  /** Rows skipped for a reason the world never gave (it removes nothing; it pauses only the channels in `pausedEver`). */
  unexplainedSkips: string[];
  /** Deliveries of a subscriber whose instant channel stayed active that no alert row of that channel carries. */
  alertsNeverPlanned: string[];
  /** Digests claimed (emails/ rows) for a subscriber whose digest channel stayed active, with no row for that channel. */
  digestsNeverPlanned: string[];
};

const empty = (): ChannelCounts => ({
  attempted: 0,
  received: 0,
  lost: 0,
  duplicated: 0,
  failedVisibly: 0,
  gone: 0,
  skipped: 0,
  repeatsDroppedByReceiver: 0,
  unexpected: 0,
});
const FINAL = new Set(['sent', 'failed', 'dead', 'skipped']);

/** A channel's key on the stand-in: Slack the path after /services/, Discord the webhook id, Telegram the chat id, a webhook its name. */
export type ChannelDestinations = Map<string, { kind: ChannelKind; key: string }>;

/**
 * What a platform received, recognised as the row it carries. A webhook names its row (the
 * `webhook-id`, a digest of the row's key); Slack and Discord get the frozen body byte for byte;
 * a Telegram body is the frozen one addressed to the channel's chat at send time, so its chat is
 * set back to the unaddressed one (key order kept, as the sender's spread keeps it) before hashing.
 */
function identityOf(request: ReceivedRequest): string {
  const where = `${request.platform}|${request.destination}`;
  if (request.platform === 'webhook') return `${where}|${request.headers['webhook-id'] ?? ''}`;
  if (request.platform === 'telegram') {
    try {
      const parsed = JSON.parse(request.rawBody) as Record<string, unknown>;
      return `${where}|${sha256Hex(JSON.stringify({ ...parsed, chat_id: UNADDRESSED_CHAT }))}`;
    } catch {
      return `${where}|${sha256Hex(request.rawBody)}`; // not a body Scout renders: it will match no row
    }
  }
  return `${where}|${sha256Hex(request.rawBody)}`;
}

function rowIdentity(key: string, row: MessageRow, destination: { kind: ChannelKind; key: string }): string {
  const where = `${destination.kind}|${destination.key}`;
  return row.channel === 'webhook' ? `${where}|${webhookMessageId(key)}` : `${where}|${row.bodyHash}`;
}

/**
 * Compares the channels' ledger (messages/) with what the stand-in's platforms took, like the
 * email queue checker does with the mail sink. `requests` is every request the stand-in logged
 * (`received({ all: true })`: refused and dropped ones too); `lostAnswers` counts, per message key,
 * the sends whose answer a crash swallowed after the send (the after-message-send failpoint).
 */
export async function checkChannelMessages(
  db: Firestore,
  requests: ReceivedRequest[],
  input: { destinations: ChannelDestinations; lostAnswers: Map<string, number>; pausedEver?: Set<string> },
): Promise<ChannelReport> {
  const counts = Object.fromEntries(CHANNEL_KINDS.map((k) => [k, { alert: empty(), digest: empty() }])) as ChannelReport['counts'];
  const report: ChannelReport = {
    counts,
    stuck: [],
    repeatedAlerts: [],
    unexplainedDigestRepeats: [],
    explainedDigestRepeats: [],
    carriedTwice: [],
    unexplainedSkips: [],
    alertsNeverPlanned: [],
    digestsNeverPlanned: [],
  };
  const pausedEver = input.pausedEver ?? new Set<string>();
  const taken = new Map<string, ReceivedRequest[]>();
  for (const request of requests.filter((r) => r.accepted)) {
    const id = identityOf(request);
    taken.set(id, [...(taken.get(id) ?? []), request]);
  }
  const rows = (await messagesCollection(db).get()).docs.map((d) => ({ key: d.id, row: d.data() }));
  const matched = new Set<string>();
  const carried = new Map<string, string>();
  for (const { key, row } of rows) {
    const destination = input.destinations.get(row.channelId);
    if (!destination) throw new Error(`messages/${key} is for a channel the world never added (${row.channelId})`);
    const c = counts[row.channel][row.kind];
    const id = rowIdentity(key, row, destination);
    matched.add(id);
    const copies = taken.get(id) ?? [];
    c.attempted += 1;
    if (copies.length > 0) c.received += 1;
    let seen = copies.length;
    if (row.channel === 'webhook') {
      // The receiver keeps the first body of an id and drops the rest; a different body under the id would be a lie.
      c.unexpected += copies.filter((r) => sha256Hex(r.rawBody) !== row.bodyHash).length;
      c.repeatsDroppedByReceiver += Math.max(0, copies.length - 1);
      seen = Math.min(copies.length, 1);
    }
    if (seen > 1) {
      c.duplicated += seen - 1;
      if (row.kind === 'alert') report.repeatedAlerts.push(`${key} (${row.channel}) shown ${seen} times`);
      else {
        const dropped = copies.filter((r) => r.outcome === 'dropped').length;
        const lostAnswers = dropped + (input.lostAnswers.get(key) ?? 0);
        const line = `${key} (${row.channel}) shown ${seen} times; answers lost: ${dropped} dropped, ${input.lostAnswers.get(key) ?? 0} crashed after the send`;
        (seen - 1 <= lostAnswers ? report.explainedDigestRepeats : report.unexplainedDigestRepeats).push(line);
      }
    }
    if (!FINAL.has(row.status)) report.stuck.push(`messages/${key} is ${row.status}`);
    if (copies.length === 0) {
      if (row.status === 'skipped') {
        c.skipped += 1;
        const optedOut = row.lastError === 'channel_paused' && pausedEver.has(row.channelId);
        if (row.lastError !== 'channel_disabled' && !optedOut) report.unexplainedSkips.push(`messages/${key} skipped: ${row.lastError}`);
      } else if ((row.status === 'failed' || row.status === 'dead') && row.lastError?.startsWith('gone')) c.gone += 1;
      else if ((row.status === 'failed' || row.status === 'dead') && row.lastError) c.failedVisibly += 1;
      else c.lost += 1; // sent by the ledger's word, or never settled: either way nothing arrived and nothing says so
    }
    for (const deliveryId of row.deliveryIds) {
      const carrier = `${row.channelId}|${row.kind}|${deliveryId}`;
      const first = carried.get(carrier);
      if (first) report.carriedTwice.push(`${deliveryId} in ${row.kind} rows ${first} and ${key}`);
      else carried.set(carrier, key);
    }
  }
  await checkPlanned(db, { keys: new Set(rows.map((r) => r.key)), carried, pausedEver }, report);
  for (const [id, copies] of taken) {
    if (matched.has(id)) continue;
    const platform = copies[0].platform;
    const kind: MessageKind = /digest/i.test(copies[0].rawBody) ? 'digest' : 'alert';
    counts[platform][kind].unexpected += copies.length;
  }
  return report;
}

/**
 * Nothing due was left out of the ledger: every delivery (created after the world added the
 * channels) is carried by an alert of each instant channel its subscriber kept active, and every
 * digest claimed for email has a row for each digest channel kept active. A channel disabled on
 * the way (gone) or paused at some point is left out: what it was owed depends on when.
 */
async function checkPlanned(
  db: Firestore,
  input: { keys: Set<string>; carried: Map<string, string>; pausedEver: Set<string> },
  report: ChannelReport,
) {
  const { keys, carried } = input;
  const subscribers = (await subscribersCollection(db).get()).docs.map((d) => ({ uid: d.id, channels: d.data().channels ?? [] }));
  const kept = (c: { id: string; status: string }) => c.status === 'active' && !input.pausedEver.has(c.id);
  const active = new Map(subscribers.map((s) => [s.uid, s.channels.filter(kept)]));
  for (const doc of (await deliveriesCollection(db).get()).docs) {
    const { uid, jobId } = doc.data();
    for (const channel of (active.get(uid) ?? []).filter((c) => c.instant)) {
      if (!carried.has(`${channel.id}|alert|${deliveryId(uid, jobId)}`))
        report.alertsNeverPlanned.push(`${deliveryId(uid, jobId)} on ${channel.kind} ${channel.id}`);
    }
  }
  for (const doc of (await db.collection('emails').where('kind', '==', 'digest').get()).docs) {
    const uid = doc.get('uid') as string;
    for (const channel of (active.get(uid) ?? []).filter((c) => c.digest)) {
      if (!keys.has(messageKey(doc.id, channel.id))) report.digestsNeverPlanned.push(`${doc.id} on ${channel.kind} ${channel.id}`);
    }
  }
}

/** The report as a table: one line per channel kind and message kind. */
export function channelTable(report: ChannelReport): string {
  const columns: (keyof ChannelCounts)[] = [
    'attempted',
    'received',
    'lost',
    'duplicated',
    'failedVisibly',
    'gone',
    'skipped',
    'repeatsDroppedByReceiver',
    'unexpected',
  ];
  const head = ['channel', 'message', ...columns];
  const lines = CHANNEL_KINDS.flatMap((kind) =>
    (['alert', 'digest'] as const).map((m) => [kind, m, ...columns.map((col) => String(report.counts[kind][m][col]))]),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => `  ${cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')}`;
  return [format(head), ...lines.map(format)].join('\n');
}
