import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectTelegramWebhook } from '../../lib/channels/telegram-bot';
import { telegramWebhookSecret } from '../../lib/runtime/config';
import { DEFAULT_TELEGRAM_BOT, startChannelStandIn } from '../../scripts/channel-stand-in/server';

let standIn: Awaited<ReturnType<typeof startChannelStandIn>>;
beforeEach(async () => {
  standIn = await startChannelStandIn({ port: 0 });
});
afterEach(async () => standIn.close());

const config = () => ({
  APP_URL: 'https://scout.example.com',
  LINK_SECRET: 'test-link-secret-0123456789',
  TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token,
  TELEGRAM_API_BASE_URL: standIn.url,
});

describe("registering Scout's Telegram webhook", () => {
  it('sets APP_URL/api/telegram with the derived secret and only the updates the bot reads', async () => {
    const result = await connectTelegramWebhook(config());
    expect(result).toMatchObject({ ok: true, url: 'https://scout.example.com/api/telegram' });
    expect(standIn.telegramWebhook()).toMatchObject({
      url: 'https://scout.example.com/api/telegram',
      secretToken: telegramWebhookSecret(config()),
    });
  });

  it('the derived secret is what Telegram accepts (1–256 of A–Z, a–z, 0–9, _ and -) and changes with the token and the link secret', () => {
    const secret = telegramWebhookSecret(config());
    expect(secret).toMatch(/^[A-Za-z0-9_-]{1,256}$/);
    expect(telegramWebhookSecret({ ...config(), TELEGRAM_BOT_TOKEN: '7000000002:AAAnotherTokenOfTwentyChars' })).not.toBe(secret);
    expect(telegramWebhookSecret({ ...config(), LINK_SECRET: 'another-link-secret-0123456789' })).not.toBe(secret);
  });

  it('a refused token is reported without repeating the token', async () => {
    const result = await connectTelegramWebhook({ ...config(), TELEGRAM_BOT_TOKEN: '7000000009:AAUnknownTokenUnknownToken' });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain('AAUnknownTokenUnknownToken');
    expect(result).toMatchObject({ error: expect.stringContaining('401') });
  });
});
