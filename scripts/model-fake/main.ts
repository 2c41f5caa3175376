import { parseArgs } from 'node:util';
import { MAX_DELAY_MS } from './faults';
import { DEFAULT_MODELS, startModelFake } from './server';

/**
 * `tsx scripts/model-fake/main.ts --port 3040 [--host 127.0.0.1] [--model scout-fake-1 ...] [--delay-ms 50]`
 *
 * --delay-ms holds every chat-completions answer that long, for every key (a model's answer time;
 * the bench's --ai mode runs it at 50).
 *
 * Faults for one key, e.g. two 429s then answers:
 *   curl -X POST localhost:3040/__faults -d '{"apiKey":"k","faults":[{"mode":"429","retryAfterSeconds":2,"count":2}]}'
 * What key k sent: curl 'localhost:3040/__requests?apiKey=k'; how many requests: /__requests/count?apiKey=k
 */
async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.MODEL_FAKE_PORT ?? '3040' },
      host: { type: 'string', default: '127.0.0.1' },
      model: { type: 'string', multiple: true },
      'delay-ms': { type: 'string', default: '0' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`model-fake: --port must be an integer between 0 and 65535, got "${values.port}"`);
    process.exit(2);
  }
  const delayMs = Number(values['delay-ms']);
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
    console.error(`model-fake: --delay-ms must be a whole number from 0 to ${MAX_DELAY_MS}, got "${values['delay-ms']}"`);
    process.exit(2);
  }
  const fake = await startModelFake({ port, host: values.host, models: values.model ?? DEFAULT_MODELS, delayMs });
  // First line of stdout is the bare URL so scripts can capture it.
  console.log(fake.url);
  console.error(
    `model-fake: AI_BASE_URL=${fake.baseUrl} AI_MODEL=${fake.models[0]} (any AI_API_KEY; faults per key at /__faults${delayMs > 0 ? `; every answer ${delayMs} ms late` : ''})`,
  );

  const stop = async (signal: string) => {
    console.error(`model-fake: ${signal}, stopping`);
    await fake.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error('model-fake: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
