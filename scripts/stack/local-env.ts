/**
 * The embedded default: what `npm run dev`, `npm run demo` and the tests run against when no
 * .env says otherwise. Everything points at loopback; nothing here is a real secret.
 */
import { LOCAL_STACK_SECRETS } from '../../lib/runtime/config';
import { DEFAULT_MODELS } from '../model-fake/server';
import { sampleSourceEntries } from '../sample-feed/sample-sources';

/**
 * `modelFake` is off unless given a port: the AI verdict stage is optional, so the default stack has no model.
 * `channelStandIn` too: the stand-in for Slack, Discord, Telegram and webhook receivers (scripts/channel-stand-in).
 */
export type StackPorts = { firestore: number; mailSink: number; feed: number; app: number; modelFake?: number; channelStandIn?: number };

export const DEFAULT_PORTS: StackPorts = { firestore: 8080, mailSink: 3025, feed: 3030, app: 3000 };

export function localEnv(ports: StackPorts, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    // Published here, so production refuses them (lib/runtime/config.ts).
    ...LOCAL_STACK_SECRETS,
    APP_URL: `http://localhost:${ports.app}`,
    MAIL_FROM: 'Scout <alerts@scout.localhost>',
    RESEND_API_KEY: 're_local_sink',
    RESEND_BASE_URL: `http://127.0.0.1:${ports.mailSink}`,
    FIREBASE_PROJECT_ID: 'demo-scout',
    FIRESTORE_EMULATOR_HOST: `127.0.0.1:${ports.firestore}`,
    METADATA_SERVER_DETECTION: 'none',
    FEED_URLS: `sample=http://127.0.0.1:${ports.feed}/sample.xml`,
    // Every other kind of source, from the same sample server (README "Sources").
    ...sampleSources(ports.feed, overrides),
    // The sample feed server is on loopback; production refuses this setting.
    FEED_ALLOW_PRIVATE_ADDRESSES: 'true',
    ALLOW_CLOCK_OVERRIDE: 'true',
    SEND_RATE_PER_SEC: '10',
    // The AI verdict stage, only with the model fake on the stack: any key works, it only names the fake's log.
    ...(ports.modelFake !== undefined
      ? { AI_BASE_URL: `http://127.0.0.1:${ports.modelFake}/v1`, AI_MODEL: DEFAULT_MODELS[0], AI_API_KEY: 'sk-local-model-fake' }
      : {}),
    // Channels on the stand-in: their URLs are loopback ones (production refuses this setting), and it is the Bot API.
    ...(ports.channelStandIn !== undefined
      ? { CHANNEL_ALLOW_LOOPBACK: 'true', TELEGRAM_API_BASE_URL: `http://127.0.0.1:${ports.channelStandIn}` }
      : {}),
  };
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined && value !== '') env[key] = value;
  return env;
}

/** A caller that names its own feeds (FEED_URLS, without SOURCES) gets only those. */
function sampleSources(port: number, overrides: Record<string, string | undefined>): { SOURCES?: string } {
  if (overrides.FEED_URLS && !overrides.SOURCES) return {};
  const entries = sampleSourceEntries(`http://127.0.0.1:${port}`);
  return entries.length > 0 ? { SOURCES: JSON.stringify(entries) } : {};
}
