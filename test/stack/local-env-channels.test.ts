import { describe, expect, it } from 'vitest';
import { loadConfig, telegramEnabled } from '../../lib/runtime/config';
import { DEFAULT_PORTS, localEnv } from '../../scripts/stack/local-env';

describe('scripts/stack/local-env: channels on the local stack', () => {
  it('without the channel stand-in, channel URLs stay public-only', () => {
    const env = localEnv(DEFAULT_PORTS);
    expect(env.CHANNEL_ALLOW_LOOPBACK).toBeUndefined();
    expect(loadConfig(env).CHANNEL_ALLOW_LOOPBACK).toBe(false);
  });

  it("with it, channel URLs may be loopback ones and the Bot API is the stand-in's, as a config that loads; Telegram stays off until its bot is configured", () => {
    const env = localEnv({ ...DEFAULT_PORTS, channelStandIn: 3050 });
    expect(env).toMatchObject({ CHANNEL_ALLOW_LOOPBACK: 'true', TELEGRAM_API_BASE_URL: 'http://127.0.0.1:3050' });
    const config = loadConfig(env);
    expect(config.CHANNEL_ALLOW_LOOPBACK).toBe(true);
    expect(config.TELEGRAM_API_BASE_URL).toBe('http://127.0.0.1:3050');
    expect(telegramEnabled(config)).toBe(false);
  });
});
