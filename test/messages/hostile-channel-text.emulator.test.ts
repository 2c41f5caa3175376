import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness';
import { addChannel, createChannelHarness, type StandIn } from '../support/channels';
import { CHAT_HOSTILE_TEXTS, HOSTILE_TEXTS } from '../support/hostile-texts';
import { messagesCollection } from '../../lib/messages/message-row';
import { newWebhookSecret } from '../../lib/channels/transports/webhook';

/**
 * The hostile-feed set through every channel, end to end: postings whose titles and text are
 * written to fool each platform go through a real run, and each platform's stand-in takes the
 * message (Telegram's refuses HTML it would refuse) with nothing in it that the platform would read
 * as a mention, a link Scout did not make, or markup.
 */

const NOW = new Date('2026-11-30T06:00:00Z');
const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

let h: Harness;
let standIn: StandIn;
let close: () => Promise<void>;
beforeEach(async () => {
  ({ h, standIn, close } = await createChannelHarness());
});
afterEach(async () => close());

describe('hostile posting text, through every channel', () => {
  it('every platform takes the message, and none of it reads as a mention, a foreign link or markup', async () => {
    const uid = await h.subscribe({ email: 'ada@example.com', keywords: ['react'], mode: 'instant' });
    await addChannel(h.db, uid, { kind: 'slack', destination: standIn.slackUrl('T0/B0/hostile') });
    await addChannel(h.db, uid, { kind: 'discord', destination: standIn.discordUrl('114477122446512128', 'tok_hostile') });
    await addChannel(h.db, uid, { kind: 'telegram', destination: '777' });
    await addChannel(h.db, uid, { kind: 'webhook', destination: standIn.hookUrl('hostile'), secret: newWebhookSecret() });
    const texts = [...CHAT_HOSTILE_TEXTS, ...HOSTILE_TEXTS].filter((t) => t.trim() && !/[\u0000-\u0008]/.test(t));
    h.serveFeed(
      texts.map((text, i) => ({
        guid: `hostile-${i}`,
        title: xml(`react ${text}`.slice(0, 400)),
        link: i % 2 ? `https://example.com/jobs/${i}` : `javascript:alert(${i})`,
        description: `react ${text}`,
        pubDate: NOW.toUTCString(),
      })),
    );

    const run = await h.run({ now: NOW.toISOString() });

    expect(run.channels).toMatchObject({ sent: 4, failed: 0, dead: 0 });
    const rows = (await messagesCollection(h.db).get()).docs.map((d) => d.data());
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const body = (platform: 'slack' | 'discord' | 'telegram' | 'webhook') => {
      const [received] = standIn.received({ platform });
      expect(received, platform).toBeDefined();
      return received.rawBody;
    };

    const slack = body('slack');
    for (const mention of ['<!channel>', '<!here>', '<!everyone>', '<@123>', '<@U024BE7LH|bob>', '<#C024BE7LR|general>', '<@&123>'])
      expect(slack).not.toContain(mention);
    // The words may show as text; what matters is that no link Scout makes points there.
    expect(slack).not.toMatch(/<\s*javascript:/i);

    const discord = body('discord');
    expect(JSON.parse(discord)).toMatchObject({ allowed_mentions: { parse: [] } });
    expect(discord).not.toMatch(/@(everyone|here)/);
    expect(discord).not.toContain('](https://evil.example)');
    expect(discord).not.toMatch(/\]\(\s*javascript:/i);

    const telegram = JSON.parse(body('telegram')) as { text: string; parse_mode: string; chat_id: string };
    expect(telegram).toMatchObject({ parse_mode: 'HTML', chat_id: '777' });
    expect(telegram.text).not.toMatch(/<(script|a href="https:\/\/evil)/);
    expect(telegram.text).not.toMatch(/href="\s*javascript:/i);

    const webhook = JSON.parse(body('webhook')) as { data: { postings: { url: string | null; title: string }[] } };
    expect(webhook.data.postings.every((p) => p.url === null || p.url.startsWith('https://'))).toBe(true);
  });
});
