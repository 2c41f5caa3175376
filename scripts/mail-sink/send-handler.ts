import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiCall } from './api-gate';
import type { FaultBook } from './faults';
import { MAX_BODY_BYTES, errorBody, parseJson, readBody, sendError, sendJson } from './http-io';
import { MAX_IDEMPOTENCY_KEY_LENGTH, requestFingerprint, type IdempotencyDecision, type IdempotencyStore } from './idempotency';
import type { MessageStore } from './message-store';
import { checkBatch, checkEmail, type BatchMode, type EmailDraft } from './validate';

export type SendContext = {
  store: MessageStore;
  idempotency: IdempotencyStore;
  faults: FaultBook;
  now: () => number;
  /** Aborted when the sink closes: pending latency must not keep the process alive. */
  signal: AbortSignal;
};

/** The drafts to store, and what a permissive batch adds to its answer. */
type Accepted = { drafts: { index: number; draft: EmailDraft }[]; extra: { errors?: { index: number; message: string }[] } };

function readIdempotencyKey(req: IncomingMessage): { ok: true; key: string | null } | { ok: false } {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return { ok: true, key: null };
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  return key.length >= 1 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? { ok: true, key } : { ok: false };
}

const batchModeOf = (req: IncomingMessage): BatchMode =>
  String(req.headers['x-batch-validation'] ?? '').toLowerCase() === 'permissive' ? 'permissive' : 'strict';

/**
 * POST /emails and POST /emails/batch. Order matters and mirrors what a client can observe:
 * validation never consumes an idempotency key; the key is claimed before the injected latency
 * (so a twin request sees it in flight); an injected failure releases it; a dropped response keeps it.
 */
export async function handleSend(ctx: SendContext, req: IncomingMessage, res: ServerResponse, call: ApiCall, kind: 'single' | 'batch') {
  const { apiKey, rateHeaders } = call;
  const answerAfterLatency = async (status: number, body: unknown, headers: Record<string, string> = {}) => {
    await ctx.faults.delay(apiKey, ctx.signal);
    sendJson(res, status, body, { ...rateHeaders, ...headers });
  };

  const body = await readBody(req);
  if (!body.ok) {
    return answerAfterLatency(413, errorBody(413, 'validation_error', `The request body exceeds ${MAX_BODY_BYTES / (1024 * 1024)} MB.`));
  }
  const idempotencyKey = readIdempotencyKey(req);
  if (!idempotencyKey.ok) {
    return answerAfterLatency(
      400,
      errorBody(400, 'invalid_idempotency_key', `The key must be between 1-${MAX_IDEMPOTENCY_KEY_LENGTH} chars.`),
    );
  }
  const json = parseJson(body.raw);
  if (!json.ok) return answerAfterLatency(400, errorBody(400, 'validation_error', 'The request body is not valid JSON.'));

  const mode = kind === 'batch' ? batchModeOf(req) : 'strict';
  const accepted = accept(json.value, kind, mode);
  if ('message' in accepted) return answerAfterLatency(422, errorBody(422, 'validation_error', accepted.message));

  const path = kind === 'batch' ? '/emails/batch' : '/emails';
  const decision: IdempotencyDecision | null = idempotencyKey.key
    ? ctx.idempotency.begin(apiKey, idempotencyKey.key, requestFingerprint(path, mode, body.raw))
    : null;
  if (decision?.kind === 'replay') return answerAfterLatency(decision.status, decision.body);
  if (decision?.kind === 'conflict') return answerAfterLatency(409, errorBody(409, decision.name, decision.message));

  try {
    await ctx.faults.delay(apiKey, ctx.signal);
  } catch (error) {
    decision?.release();
    throw error;
  }

  const failure = ctx.faults.takeFailure(apiKey);
  if (failure) {
    decision?.release();
    return sendError(res, failure.status, failure.name, failure.message, { ...rateHeaders, ...failure.headers });
  }

  const ids = accepted.drafts.map(({ draft }) => {
    const id = randomUUID();
    ctx.store.add({
      ...draft,
      id,
      apiKey,
      idempotencyKey: idempotencyKey.key,
      receivedAt: new Date(ctx.now()).toISOString(),
      batch: kind === 'batch',
    });
    return id;
  });
  const payload = kind === 'single' ? { id: ids[0] } : { data: ids.map((id) => ({ id })), ...accepted.extra };
  const serialized = JSON.stringify(payload);
  decision?.complete(200, serialized);

  if (ctx.faults.takeDrop(apiKey)) {
    // The ambiguous outcome: stored and keyed, yet the client only sees a dead socket.
    req.socket.destroy();
    return;
  }
  sendJson(res, 200, serialized, rateHeaders);
}

function accept(value: unknown, kind: 'single' | 'batch', mode: BatchMode): Accepted | { message: string } {
  if (kind === 'single') {
    const checked = checkEmail(value);
    return checked.ok ? { drafts: [{ index: 0, draft: checked.value }], extra: {} } : { message: checked.message };
  }
  const checked = checkBatch(value, mode);
  if (!checked.ok) return { message: checked.message };
  return { drafts: checked.value.accepted, extra: mode === 'permissive' ? { errors: checked.value.errors } : {} };
}
