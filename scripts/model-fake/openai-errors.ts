import type { ServerResponse } from 'node:http';
import { sendJson } from '../mail-sink/http-io';

/** OpenAI's error envelope, which OpenAI-compatible clients parse into their error objects. */
export function sendOpenAiError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  code: string | null = null,
  headers: Record<string, string> = {},
) {
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}

export const invalidRequest = (res: ServerResponse, message: string, code: string | null = null) =>
  sendOpenAiError(res, 400, 'invalid_request_error', message, code);

export const notFound = (res: ServerResponse) => sendOpenAiError(res, 404, 'invalid_request_error', 'Unknown endpoint.', 'unknown_url');

export const methodNotAllowed = (res: ServerResponse) =>
  sendOpenAiError(res, 405, 'invalid_request_error', 'Method is not allowed for the requested path.', 'method_not_allowed');
