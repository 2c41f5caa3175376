import { createVerdictClient } from '../../lib/verdicts/ask-verdicts';

/** The verdict client as production builds it, pointed at the model fake under its own key. */
export function fakeVerdictClient(fake: { baseUrl: string }, apiKey: string, timeoutMs = 10_000) {
  const client = createVerdictClient({
    AI_BASE_URL: fake.baseUrl,
    AI_API_KEY: apiKey,
    AI_MODEL: 'scout-fake-1',
    tuning: { AI_TIMEOUT_MS: timeoutMs },
  });
  if (!client) throw new Error('the verdict client was not built: AI_BASE_URL and AI_MODEL are set, so this is a bug');
  return client;
}
