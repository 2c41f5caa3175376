import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { parseJson, readBody, sendJson } from '../mail-sink/http-io';
import { requireApiKey } from './auth';
import { buildCompletion, type Answer } from './completion';
import { delay, modeOf, type FaultBook } from './faults';
import { invalidRequest, sendOpenAiError } from './openai-errors';
import type { RequestLog } from './request-log';
import { chatRequestSchema, readVerdictInput } from './verdict-request';

export type CompletionsContext = {
  faults: FaultBook;
  log: RequestLog;
  models: string[];
  now: () => number;
  signal: AbortSignal;
  /** The fake's fixed latency (ModelFakeOptions.delayMs), on top of any slow fault. */
  delayMs: number;
};

/**
 * POST /v1/chat/completions. Faults are taken for every authenticated request, before the body is
 * validated, the way a gateway or an overloaded server fails whatever it is sent; each request is
 * recorded with the fault that answered it, so a test can count attempts and retries.
 */
export async function handleCompletions(ctx: CompletionsContext, req: IncomingMessage, res: ServerResponse) {
  const apiKey = requireApiKey(req, res);
  if (!apiKey) return;
  const body = await readBody(req);
  if (!body.ok) return sendOpenAiError(res, 413, 'invalid_request_error', 'The request body is too large.');
  const raw = body.raw.toString('utf8');
  const json = parseJson(body.raw);

  const plan = ctx.faults.take(apiKey);
  ctx.log.record(apiKey, { receivedAt: new Date(ctx.now()).toISOString(), body: json.ok ? json.value : raw, fault: modeOf(plan) });
  await delay(ctx.delayMs + plan.delayMs, ctx.signal);
  const failure = plan.failure;
  if (failure?.mode === 'drop') return req.socket.destroy();
  if (failure?.mode === '500') return sendOpenAiError(res, 500, 'server_error', 'The server had an error while processing your request.');
  if (failure?.mode === '429') {
    return sendOpenAiError(res, 429, 'requests', 'Rate limit reached for requests (injected by the model fake).', 'rate_limit_exceeded', {
      'retry-after': String(failure.retryAfterSeconds),
    });
  }

  if (!json.ok) return invalidRequest(res, 'We could not parse the JSON body of your request.');
  const parsed = chatRequestSchema.safeParse(json.value);
  if (!parsed.success) return invalidRequest(res, z.prettifyError(parsed.error));
  const request = parsed.data;
  if (!ctx.models.includes(request.model)) {
    return sendOpenAiError(
      res,
      404,
      'invalid_request_error',
      `The model \`${request.model}\` does not exist or you do not have access to it.`,
      'model_not_found',
    );
  }
  if (request.stream) return invalidRequest(res, 'The model fake does not stream; send stream: false.');
  const input = readVerdictInput(request);
  if (!input.ok) return invalidRequest(res, input.message);

  const answer: Answer =
    failure?.mode === 'malformed' ? 'malformed' : failure?.mode === 'refusal' ? 'refusal' : plan.obedient ? 'obedient' : 'verdicts';
  sendJson(res, 200, buildCompletion(raw, request, input, answer, ctx.now()));
}

/** GET /v1/models, in OpenAI's list shape. */
export function handleModels(models: string[], req: IncomingMessage, res: ServerResponse) {
  if (!requireApiKey(req, res)) return;
  sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scout-model-fake' })) });
}
