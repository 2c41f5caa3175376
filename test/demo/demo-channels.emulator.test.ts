import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readChannels } from '../../lib/channels/channel';
import { renderChannelMessage } from '../../lib/channels/formats/render-channel-message';
import type { ChannelContent } from '../../lib/channels/channel-content';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { handleTelegramUpdate } from '../../lib/subscriptions/handle-telegram-update';
import { subscribersCollection } from '../../lib/subscribers/subscriber';
import { DEFAULT_TELEGRAM_BOT, startChannelStandIn, type ChannelStandIn } from '../../scripts/channel-stand-in/server';
import { channelMessageLines, connectDemoChannels, DEMO_SLACK_PATH, DEMO_TELEGRAM_CHAT, formsOf } from '../../scripts/demo/channels';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';
import { freePort } from '../support/free-port';
import { createHarness, type Harness } from '../support/harness';

/**
 * `npm run demo`'s channels without `next dev`: the preferences page and the bot's webhook served
 * by their real handlers on a local server, the stand-in playing Slack and Telegram. The demo's
 * subscriber connects both the way a person does, a run sends the alert to each once, a second run
 * sends nothing; and the lines the demo prints read each platform's real message.
 */
const NOW = '2026-11-30T06:00:00Z';
let h: Harness;
let standIn: ChannelStandIn;
let app: Server;
let appUrl: string;

beforeAll(async () => {
  standIn = await startChannelStandIn({ port: 0 });
  const port = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  h = await createHarness({
    APP_URL: appUrl,
    CHANNEL_ALLOW_LOOPBACK: 'true',
    TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token,
    TELEGRAM_BOT_USERNAME: DEFAULT_TELEGRAM_BOT.username,
    TELEGRAM_API_BASE_URL: standIn.url,
  });
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', appUrl);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const request = new Request(url, { method: req.method, headers, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined });
      const deps = { db: h.db, config: h.config, now: new Date(), sendChannelTest: h.deps.sendChannelTest };
      const handled =
        url.pathname === '/api/telegram'
          ? handleTelegramUpdate(request, deps)
          : url.pathname === '/preferences'
            ? handlePreferencesRequest(request, deps)
            : Promise.resolve(new Response('Not Found', { status: 404 }));
      void handled.then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => app.listen(port, '127.0.0.1', resolve));
});

afterAll(async () => {
  app?.closeAllConnections();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
  await standIn?.close();
  await h?.close();
});

beforeEach(() => standIn.reset());

const env = () => ({
  APP_URL: appUrl,
  LINK_SECRET: h.config.LINK_SECRET,
  TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token,
  TELEGRAM_API_BASE_URL: standIn.url,
});
const channelsOf = async (uid: string) => readChannels((await subscribersCollection(h.db).doc(uid).get()).data()?.channels);

describe('npm run demo: one subscriber on email and two channels', () => {
  it('connects Slack by its code and Telegram by /start, the first run reaches both once, and the second run sends nothing', async () => {
    const uid = await h.subscribe({ email: 'maya.chen@example.com', keywords: ['react'], mode: 'instant' });
    const said: string[] = [];
    await connectDemoChannels({ appUrl, env: env(), standIn, uid, log: (line) => said.push(line) });
    expect(said.join('\n')).toMatch(/Slack: added on the preferences page, the code \d{6} it got typed back → verified/);
    expect((await channelsOf(uid)).map((c) => [c.kind, c.status, c.destination])).toEqual([
      ['slack', 'active', standIn.slackUrl(DEMO_SLACK_PATH)],
      ['telegram', 'active', String(DEMO_TELEGRAM_CHAT)],
    ]);
    const setupSeq = Math.max(...standIn.received().map((r) => r.seq));

    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
    const first = await h.cron({ now: NOW });
    expect(first.body).toMatchObject({ instantEmails: 1, channels: { sent: 2, failed: 0 } });
    const alerts = standIn.received().filter((r) => r.seq > setupSeq);
    // The two destinations are sent to side by side: in whichever order they answered.
    const lines = channelMessageLines(alerts).sort();
    expect(lines).toHaveLength(2);
    const titles = (await h.db.collection('jobs').get()).docs.map((d) => d.get('title') as string);
    expect(lines[0]).toMatch(new RegExp(`^ {2}slack {4}${DEMO_SLACK_PATH} +Scout: 2 new matches — `));
    expect(lines[1]).toMatch(new RegExp(`^ {2}telegram ${DEMO_TELEGRAM_CHAT} +Scout: 2 new matches — `));
    // Both lead with the same posting, one of the run's.
    const firstTitles = lines.map((line) => line.split(' — ')[1]);
    expect(titles).toContain(firstTitles[0]);
    expect(firstTitles[1]).toBe(firstTitles[0]);

    const second = await h.cron({ now: NOW });
    expect(second.body).toMatchObject({ emailsSent: 0, channels: { sent: 0 } });
    expect(standIn.received().filter((r) => r.seq > setupSeq)).toHaveLength(2);
  });

  it('stops, saying which step, when Slack refuses the URL: the demo does not go on with one channel', async () => {
    const uid = await h.subscribe({ email: 'tomas.novak@example.com', keywords: ['firebase'], mode: 'instant' });
    standIn.inject({ destination: DEMO_SLACK_PATH, platform: 'slack', fault: 'gone' });
    await expect(connectDemoChannels({ appUrl, env: env(), standIn, uid, log: () => {} })).rejects.toThrow(
      /^adding Slack: POST \/preferences → 400$/,
    );
    expect(await channelsOf(uid)).toEqual([]);
  });

  it('stops when the bot cannot be connected (a token the Bot API does not know)', async () => {
    const uid = await h.subscribe({ email: 'lea.martin@example.com', keywords: ['figma'], mode: 'instant' });
    const wrongBot = { ...env(), TELEGRAM_BOT_TOKEN: '7000000009:AAAnotherBotTokenNobodyKnows' };
    await expect(connectDemoChannels({ appUrl, env: wrongBot, standIn, uid, log: () => {} })).rejects.toThrow(
      /^scout telegram connect: Telegram answered 401/,
    );
  });
});

describe('the lines the demo prints for what the channels received', () => {
  const links = { preferences: 'https://scout.example.com/preferences?token=t', archive: 'https://scout.example.com/archive?token=t' };
  const posting = (title: string) => ({
    id: 'sample_1',
    title,
    url: 'https://jobs.example.com/1',
    company: 'Acme & Co',
    place: 'Remote',
    pay: null,
    reasons: ['keyword: react'],
    fit: null,
    score: 80,
    source: 'Sample',
  });
  const alert: ChannelContent = {
    type: 'alert',
    postings: [posting('React <dev> & *lead* at R&D'), posting('Second')],
    more: 0,
    links,
  };
  const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it("read each platform's real message: its headline and its first posting's title as the person sees it", async () => {
    const at = { chatId: '555', createdAt: new Date(NOW) };
    await post(standIn.slackUrl('T1/B1/s'), renderChannelMessage('slack', alert, at).body);
    await post(standIn.discordUrl('1001'), renderChannelMessage('discord', alert, at).body);
    await post(`${standIn.url}/bot${DEFAULT_TELEGRAM_BOT.token}/sendMessage`, renderChannelMessage('telegram', alert, at).body);
    await post(standIn.hookUrl('mine'), renderChannelMessage('webhook', alert, at).body);
    // Slack and Discord show a feed's markdown as look-alikes or escaped; the title is still the one sent.
    const printed = channelMessageLines(standIn.received());
    expect(printed[0]).toMatch(/^ {2}slack {4}T1\/B1\/s +Scout: 2 new matches — React <dev> & ∗lead∗ at R&D$/);
    expect(printed[1]).toMatch(/^ {2}discord {2}1001 +Scout: 2 new matches — React .*dev.* & .*lead.* at R&D$/);
    expect(printed[2]).toMatch(/^ {2}telegram 555 +Scout: 2 new matches — React <dev> & \*lead\* at R&D$/);
    expect(printed[3]).toMatch(/^ {2}webhook {2}mine +postings\.alert — React <dev> & \*lead\* at R&D$/);
  });

  it('leaves out what a destination refused, and says so when nothing arrived', async () => {
    standIn.inject({ destination: 'T2/B2/s', platform: 'slack', fault: 'server-error' });
    await post(standIn.slackUrl('T2/B2/s'), renderChannelMessage('slack', alert, { chatId: null, createdAt: new Date(NOW) }).body);
    expect(channelMessageLines(standIn.received({ all: true }))).toEqual(['  (no channel received anything)']);
  });
});

describe("the page's forms, as the demo posts them", () => {
  it('reads hidden fields with their entities decoded, one form at a time', () => {
    const html =
      '<form method="post"><input type="hidden" name="action" value="channel-verify"/><input type="hidden" name="seen" value="a&amp;b&quot;c"/><input name="code" type="text"/></form>' +
      '<form><input type="hidden" name="action" value="channel-pause"/></form>';
    expect(formsOf(html)).toEqual([{ action: 'channel-verify', seen: 'a&b"c', code: '' }, { action: 'channel-pause' }]);
  });
});
