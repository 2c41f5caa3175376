import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerKey } from '../mail-sink/api-gate';
import { sendOpenAiError } from './openai-errors';

/** The Bearer key, or a 401 as OpenAI sends it. Any non-empty key is accepted: the key only names whose faults and log apply. */
export function requireApiKey(req: IncomingMessage, res: ServerResponse): string | null {
  const apiKey = bearerKey(req);
  if (apiKey) return apiKey;
  sendOpenAiError(
    res,
    401,
    'invalid_request_error',
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
  );
  return null;
}
