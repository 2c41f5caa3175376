import type { Firestore } from 'firebase-admin/firestore';
import type { ChannelKind } from '../../lib/channels/channel';
import { channelFields } from '../../lib/channels/channel';
import { emptyRunStats, recordRunEnd, recordRunStart, type ChannelRunStats } from '../../lib/ledger/runs';
import { disableGoneChannel } from '../../lib/messages/channel-gone';
import { messageKey, messagesCollection, newMessageRow, type MessageStatus } from '../../lib/messages/message-row';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import { addChannel } from '../support/channels';
import { updateSubscriber } from '../support/subscribers';

/**
 * Subscribers with channels in every kind and several states, the channels' outbox with rows
 * waiting, sent and failed (two destinations that answered gone, disabled as the dispatcher
 * disables them, one since removed by its subscriber), and runs whose records carry channel
 * stats: what the ops page and `scout status` count. The destinations and the webhook secret are
 * the kind of text neither may ever show.
 */
export const SECRETS = {
  slack: 'https://hooks.slack.com/services/T0ADA0000/B0ADA0000/adaSlackSecret000000000',
  slackTwo: 'https://hooks.slack.com/services/T0ADA0001/B0ADA0001/adaSecondSecret00000000',
  discord: 'https://discord.com/api/webhooks/1234567890/adaDiscordToken-secret',
  webhook: 'https://receiver.example/ada?token=ada-webhook-token',
  whsec: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
};

export const WORLD_EMAILS = { ada: 'ada@example.com', bea: 'bea@example.com', cid: 'cid@example.com' };

/** What the world holds, as the page and the CLI must count it. */
export const EXPECTED = {
  subscribers: {
    slack: { verifying: 1, active: 1, paused: 0, disabled: 0 },
    discord: { verifying: 0, active: 1, paused: 1, disabled: 0 },
    telegram: { verifying: 0, active: 1, paused: 1, disabled: 0 },
    webhook: { verifying: 0, active: 1, paused: 0, disabled: 1 },
  },
  waiting: { pending: 2, sending: 1 },
};

const RUN_CHANNELS: { runId: string; startedAt: string; channels: ChannelRunStats | null }[] = [
  { runId: '20261130T054500000Z-nochan00', startedAt: '2026-11-30T05:45:00Z', channels: null },
  {
    runId: '20261130T060000000Z-chan0001',
    startedAt: '2026-11-30T06:00:00Z',
    channels: {
      sent: 3,
      failed: 1,
      dead: 0,
      skipped: 1,
      retried: 2,
      disabled: 1,
      byChannel: { slack: { sent: 2, failed: 0 }, webhook: { sent: 1, failed: 1 } },
    },
  },
  {
    runId: '20261130T061500000Z-chan0002',
    startedAt: '2026-11-30T06:15:00Z',
    channels: { sent: 2, failed: 0, dead: 1, skipped: 0, retried: 0, disabled: 0, byChannel: { telegram: { sent: 2, failed: 1 } } },
  },
];

type WorldDeps = {
  db: Firestore;
  /** Adds an active subscriber the way the fixture does, and gives its uid. */
  subscribe: (email: string) => Promise<string>;
  settings: { appUrl: string; from: string; linkSecret: string };
};

export async function seedChannelWorld(deps: WorldDeps) {
  const { db } = deps;
  const ada = await deps.subscribe(WORLD_EMAILS.ada);
  const bea = await deps.subscribe(WORLD_EMAILS.bea);
  const cid = await deps.subscribe(WORLD_EMAILS.cid);

  // Ada: two Slack channels, both active (she counts once), Discord paused, a webhook that will answer gone.
  const adaSlack = await addChannel(db, ada, { kind: 'slack', destination: SECRETS.slack, label: 'hooks.slack.com/…/B0ADA0000' });
  await addChannel(db, ada, { kind: 'slack', destination: SECRETS.slackTwo, label: 'hooks.slack.com/…/B0ADA0001' });
  await addChannel(db, ada, { kind: 'discord', destination: SECRETS.discord, status: 'paused', label: 'discord.com/…/1234567890' });
  const adaHook = await addChannel(db, ada, {
    kind: 'webhook',
    destination: SECRETS.webhook,
    secret: SECRETS.whsec,
    label: 'receiver.example',
  });
  // Bea: Slack still verifying, Telegram and a webhook active.
  await addChannel(db, bea, { kind: 'slack', destination: 'https://hooks.slack.com/services/T0BEA/B0BEA/beaSecret', status: 'verifying' });
  const beaTelegram = await addChannel(db, bea, { kind: 'telegram', destination: '424242', label: '@bea' });
  const beaHook = await addChannel(db, bea, { kind: 'webhook', destination: 'https://bea.example/hook', label: 'bea.example' });
  // Cid: Telegram paused, Discord active, and a webhook that answered gone and which Cid has removed since.
  await addChannel(db, cid, { kind: 'telegram', destination: '515151', status: 'paused', label: '@cid' });
  const cidDiscord = await addChannel(db, cid, { kind: 'discord', destination: 'https://discord.com/api/webhooks/99/cid-token' });
  const cidHook = await addChannel(db, cid, { kind: 'webhook', destination: 'https://cid.example/hook', label: 'cid.example' });

  const row = async (
    set: string,
    uid: string,
    channel: { id: string; kind: ChannelKind },
    at: string,
    end: { status: MessageStatus; lastError?: string },
  ) => {
    const now = new Date(at);
    const ref = messagesCollection(db).doc(messageKey(`${set}_${uid}`, channel.id));
    await ref.create(
      newMessageRow({
        uid,
        channelId: channel.id,
        channel: channel.kind,
        kind: set.startsWith('digest') ? 'digest' : 'alert',
        deliveryIds: [`${uid}_rss_${set}`],
        body: '{"text":"postings"}',
        runId: 'run-seed',
        now,
        expireAt: new Date('2026-12-30T00:00:00Z'),
      }),
    );
    if (end.status === 'pending') return;
    // As the dispatcher records an answer: attempted, the lease let go, a final row's body dropped.
    const final = end.status !== 'sending';
    await ref.update({
      status: end.status,
      attempts: 1,
      firstAttemptAt: new Date(now.getTime() + 1_000),
      lastError: end.lastError ?? null,
      body: final ? null : '{"text":"postings"}',
      ...(end.status === 'sent' ? { sentAt: new Date(now.getTime() + 1_000) } : {}),
    });
  };
  const disable = (uid: string, channelId: string, reason: string, at: string) =>
    disableGoneChannel(
      { db, settings: deps.settings, retentionDays: 30 },
      { row: { uid, channelId }, reason, runId: 'run-seed', now: new Date(at) },
    );

  await row('alert_a1', ada, adaSlack, '2026-11-30T08:58:00Z', { status: 'pending' });
  await row('alert_b1', bea, beaTelegram, '2026-11-30T08:58:00Z', { status: 'pending' });
  await row('alert_c1', cid, cidDiscord, '2026-11-30T08:59:00Z', { status: 'sending' });
  await row('alert_a0', ada, adaSlack, '2026-11-30T06:00:00Z', { status: 'sent' });
  await row('alert_b0', bea, beaHook, '2026-11-30T06:10:00Z', { status: 'failed', lastError: 'unknown_outcome: webhook timeout' });
  // Cid's webhook answered gone at 05:00, was disabled, and Cid removed it afterwards.
  await row('alert_c0', cid, cidHook, '2026-11-30T05:00:00Z', { status: 'failed', lastError: 'gone: webhook 410' });
  await disable(cid, cidHook.id, 'webhook 410', '2026-11-30T05:00:01Z');
  const cidChannels = (await subscribersCollection(db).doc(cid).get()).data()!.channels!;
  await updateSubscriber(db, cid, channelFields(cidChannels.filter((c) => c.id !== cidHook.id)));
  // Ada's webhook answered gone to a digest and to an alert of the same run: one channel, listed once.
  await row('digest_2026-11-30', ada, adaHook, '2026-11-30T06:00:00Z', { status: 'failed', lastError: 'gone: webhook 410' });
  await row('alert_a2', ada, adaHook, '2026-11-30T06:00:00Z', { status: 'failed', lastError: 'gone: webhook 410' });
  await disable(ada, adaHook.id, 'webhook 410', '2026-11-30T06:00:02Z');

  for (const run of RUN_CHANNELS) {
    const startedAt = new Date(run.startedAt);
    await recordRunStart(db, { runId: run.runId, trigger: 'cron', shard: null, startedAt, expireAt: new Date('2026-12-30T00:00:00Z') });
    await recordRunEnd(
      db,
      { ...emptyRunStats(run.runId, 'cron'), channels: run.channels, durationMs: 4_000 },
      new Date(startedAt.getTime() + 4_000),
    );
  }
  return { ada, bea, cid };
}
