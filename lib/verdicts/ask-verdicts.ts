import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { Config } from '../runtime/config';
import { aiEnabled } from '../runtime/config';
import { parseRetryAfter } from './retry-after';
import {
  answerJsonSchema,
  counterExampleObject,
  postingObject,
  readAnswer,
  subscriberObject,
  SYSTEM_MESSAGE,
  type Verdict,
  type VerdictRequest,
} from './wire';

/** A configured model server; createVerdictClient gives none while the stage is off. */
export type VerdictClient = {
  readonly openai: OpenAI;
  readonly model: string;
  readonly timeoutMs: number;
};

export type VerdictUsage = {
  promptTokens: number;
  completionTokens: number;
  /** The server reported no usage: counted as about 4 characters a token, so the daily budget still holds. */
  estimated: boolean;
};

export type FallbackReason = 'timeout' | 'rate-limited' | 'server-error' | 'malformed' | 'refusal' | 'unreachable';

export type VerdictResult =
  | {
      kind: 'ok';
      /** Only ids that were asked about; a posting missing here keeps its keyword score. */
      verdicts: Map<string, Verdict>;
      usage: VerdictUsage;
      /** Verdicts dropped: unknown or repeated ids, or ones that break the schema. */
      ignored: number;
    }
  | {
      kind: 'fallback';
      reason: FallbackReason;
      /** 429 only: what the server asked for (retry-after-ms or Retry-After). */
      retryAfterMs?: number;
      /** The HTTP status, when the server answered with an error. */
      status?: number;
      /** What the server reported it used, when it answered 200 with something unusable: it still counts against the budget. */
      usage?: VerdictUsage;
    };

export type AskOptions = {
  /** Aborts the request (the run's budget); an abort is a `timeout` fallback. */
  signal?: AbortSignal;
  /** This request's limit, start to parsed answer; defaults to AI_TIMEOUT_MS. */
  timeoutMs?: number;
};

/** One model request, start to answer; past it the posting falls back to keywords. */
export const AI_TIMEOUT_MS = 20_000;

type ClientConfig = Pick<Config, 'AI_BASE_URL' | 'AI_API_KEY' | 'AI_MODEL' | 'tuning'>;

/** The client for the configured server, or null while the stage is off (nothing is created, nothing is sent). */
export function createVerdictClient(config: ClientConfig, options: { fetch?: typeof fetch } = {}): VerdictClient | null {
  if (!aiEnabled(config)) return null;
  const send = options.fetch ?? fetch;
  const timeoutMs = config.tuning?.AI_TIMEOUT_MS ?? AI_TIMEOUT_MS;
  const openai = new OpenAI({
    baseURL: config.AI_BASE_URL,
    // A server without auth (a local Ollama) gets no Authorization header at all: the SDK insists
    // on a key, so it gets a placeholder and the header is then removed.
    apiKey: config.AI_API_KEY ?? 'none',
    defaultHeaders: config.AI_API_KEY ? undefined : { Authorization: null },
    // Explicit, so the SDK never reads OPENAI_ORG_ID, OPENAI_PROJECT_ID and the like from the environment.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    // Retries are the caller's decision (within the run's budget, honouring Retry-After): one call, one request.
    maxRetries: 0,
    timeout: timeoutMs,
    // The SDK logs nothing: no request, header or key ever reaches the log from here.
    logLevel: 'off',
    // AI_BASE_URL names the one server the prompts and the key may go to: a redirect would let that
    // server send them anywhere, so a 3xx is taken as the answer (an error status) and never followed.
    // Set here rather than through fetchOptions so that no per-request option or SDK default can undo it.
    fetch: (input, init) => send(input, { ...init, redirect: 'manual' }),
  });
  return {
    openai,
    model: config.AI_MODEL!,
    timeoutMs,
  };
}

/** Completion tokens allowed: an id, a number and a reason of at most 200 characters fit well within it. */
const COMPLETION_TOKENS = 170;

/**
 * One request: one subscriber and one posting, and nothing else of any other posting's but the
 * counter-examples the subscriber chose. Never throws for anything the server or the network does:
 * every fault is a `fallback` with its reason, and the posting keeps its keyword score.
 */
export async function askVerdicts(client: VerdictClient, input: VerdictRequest, options: AskOptions = {}): Promise<VerdictResult> {
  // The prefix, byte for byte the same in each of this subscriber's requests: system, subscriber, counter-examples.
  const subscriberMessage = JSON.stringify(subscriberObject(input.subscriber));
  const counterExamples = counterExampleObject(input.counterExamples);
  const counterExampleMessage = counterExamples ? JSON.stringify(counterExamples) : null;
  // Last, and alone: the one posting this request judges (docs/verdicts.md).
  const postingMessage = JSON.stringify(postingObject(input.posting, input.subscriber.keywords));
  const askedIds = new Set([input.posting.id]);
  // One deadline for the whole exchange, body included (the SDK's own timeout stops at the headers).
  const timeoutMs = options.timeoutMs ?? client.timeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;

  let response: unknown;
  try {
    response = await client.openai.chat.completions.create(
      {
        model: client.model,
        messages: [
          { role: 'system', content: SYSTEM_MESSAGE },
          { role: 'user', content: subscriberMessage },
          ...(counterExampleMessage ? [{ role: 'user' as const, content: counterExampleMessage }] : []),
          { role: 'user', content: postingMessage },
        ],
        response_format: { type: 'json_schema', json_schema: { name: 'verdicts', strict: true, schema: answerJsonSchema() } },
        max_tokens: COMPLETION_TOKENS,
      },
      { signal, timeout: timeoutMs },
    );
  } catch (error) {
    return { kind: 'fallback', ...faultOf(error, signal) };
  }
  const promptChars = SYSTEM_MESSAGE.length + subscriberMessage.length + (counterExampleMessage?.length ?? 0) + postingMessage.length;
  return readResponse(response, askedIds, promptChars);
}

function faultOf(error: unknown, signal: AbortSignal): { reason: FallbackReason; retryAfterMs?: number; status?: number } {
  if (signal.aborted || error instanceof APIUserAbortError) return { reason: 'timeout' };
  // APIConnectionTimeoutError is an APIConnectionError: tested first.
  if (error instanceof APIConnectionTimeoutError) return { reason: 'timeout' };
  if (error instanceof APIConnectionError) return { reason: 'unreachable' };
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(error.headers as Headers | undefined);
      return retryAfterMs === undefined ? { reason: 'rate-limited', status } : { reason: 'rate-limited', status, retryAfterMs };
    }
    if (status === 408) return { reason: 'timeout', status };
    // 5xx, and any other status (400 for an unsupported response_format, 401, 404 for an unknown model,
    // a 3xx that is never followed): the server's answer, not ours to fix in a run.
    return { reason: 'server-error', status };
  }
  // A 200 whose body is not JSON at all.
  return { reason: 'malformed' };
}

type ChatResponse = {
  choices?: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
};

function readResponse(response: unknown, askedIds: ReadonlySet<string>, promptChars: number): VerdictResult {
  const body = (typeof response === 'object' && response !== null ? response : {}) as ChatResponse;
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  const content = typeof choice?.message?.content === 'string' ? choice.message.content : '';
  const usage = usageOf(body.usage, promptChars, content.length);
  const refused =
    (typeof choice?.message?.refusal === 'string' && choice.message.refusal !== '') || choice?.finish_reason === 'content_filter';
  if (refused) return { kind: 'fallback', reason: 'refusal', usage };
  const answer = content === '' ? null : readAnswer(content, askedIds);
  if (!answer) return { kind: 'fallback', reason: 'malformed', usage };
  return { kind: 'ok', verdicts: answer.verdicts, usage, ignored: answer.ignored };
}

function usageOf(reported: ChatResponse['usage'], promptChars: number, completionChars: number): VerdictUsage {
  const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);
  const promptTokens = count(reported?.prompt_tokens);
  const completionTokens = count(reported?.completion_tokens);
  if (promptTokens !== undefined && completionTokens !== undefined) return { promptTokens, completionTokens, estimated: false };
  return { promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.ceil(completionChars / 4), estimated: true };
}
