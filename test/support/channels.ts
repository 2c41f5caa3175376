import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Firestore } from 'firebase-admin/firestore';
import { channelFields, newChannelId, type Channel } from '../../lib/channels/channel';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import { guardedSubscriberUpdate } from '../../lib/subscribers/subscriber-writes';
import { DEFAULT_TELEGRAM_BOT, startChannelStandIn } from '../../scripts/channel-stand-in/server';
import { createHarness, type Harness } from './harness';

/**
 * A verified channel added to a subscriber as the preferences page leaves it (the list and its
 * states, with the match index entry in the same write): what a cycle test starts from.
 */
export async function addChannel(
  db: Firestore,
  uid: string,
  fields: Partial<Channel> & Pick<Channel, 'kind' | 'destination'>,
): Promise<Channel> {
  const channel: Channel = {
    id: newChannelId(),
    status: 'active',
    instant: true,
    digest: false,
    label: fields.destination,
    secret: fields.kind === 'webhook' ? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' : null,
    verifyHash: null,
    verifyExpiresAt: null,
    verifyTries: 0,
    createdAt: new Date('2026-11-29T00:00:00Z'),
    verifiedAt: new Date('2026-11-29T00:00:00Z'),
    disabledAt: null,
    disabledReason: null,
    ...fields,
  };
  await guardedSubscriberUpdate(subscribersCollection(db).doc(uid), (snap) => {
    const channels = snap.data()?.channels ?? [];
    return { update: channelFields([...channels, channel]), result: undefined };
  });
  return channel;
}

export type Received = { path: string; headers: IncomingHttpHeaders; body: string };

/**
 * A receiver of channel messages on loopback, as a subscriber's webhook endpoint is: records each
 * request, and answers what the test says (`answer`), 200 by default.
 */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'drop';
export type Receiver = { url: string; received: Received[]; answer: (path: string) => Answer; close(): Promise<void> };

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const handle: Receiver = {
    url: '',
    received,
    answer: () => ({ status: 200, body: 'ok' }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = handle.answer(req.url ?? '');
      if (answer === 'drop') return void req.socket.destroy();
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  handle.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return handle;
}

export type StandIn = Awaited<ReturnType<typeof startChannelStandIn>>;

/**
 * A fresh Scout whose channels go to a fresh local stand-in: loopback channel URLs allowed, and
 * Scout's bot the stand-in's, its Bot API the stand-in's.
 */
export async function createChannelHarness(): Promise<{ h: Harness; standIn: StandIn; close: () => Promise<void> }> {
  const standIn = await startChannelStandIn({ port: 0 });
  const h = await createHarness({
    CHANNEL_ALLOW_LOOPBACK: 'true',
    TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token,
    TELEGRAM_BOT_USERNAME: DEFAULT_TELEGRAM_BOT.username,
    TELEGRAM_API_BASE_URL: standIn.url,
  });
  return {
    h,
    standIn,
    close: async () => {
      await h.close();
      await standIn.close();
    },
  };
}
