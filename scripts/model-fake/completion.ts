import { createHash } from 'node:crypto';
import { scoreObediently, scorePosting, type Posting, type Subscriber } from './scoring';
import { textOf, type ChatRequest } from './verdict-request';

/** A rough, deterministic token count (OpenAI averages about four characters a token). */
const tokens = (text: string) => Math.ceil(text.length / 4);

export const REFUSAL = "I'm sorry, but I can't help with that request.";

/** `obedient`: verdicts from a model that follows instructions planted in posting text (scoreObediently). */
export type Answer = 'verdicts' | 'obedient' | 'malformed' | 'refusal';

/**
 * The chat.completion object for one request. Everything but `created` follows from the request
 * body, so the same request always gets the same answer, id and usage.
 */
export function buildCompletion(
  rawBody: string,
  request: ChatRequest,
  input: { subscriber: Subscriber; postings: Posting[] },
  answer: Answer,
  nowMs: number,
) {
  const judged =
    answer === 'obedient'
      ? scoreObediently(input.subscriber, input.postings)
      : input.postings.map((p) => scorePosting(input.subscriber, p));
  const verdicts = JSON.stringify({ verdicts: judged });
  // A proper prefix of a JSON object is never valid JSON: what a model cut off mid-answer sends.
  const content =
    answer === 'verdicts' || answer === 'obedient'
      ? verdicts
      : answer === 'malformed'
        ? verdicts.slice(0, Math.floor(verdicts.length / 2))
        : null;
  const refusal = answer === 'refusal' ? REFUSAL : null;
  const promptTokens = tokens(request.messages.map(textOf).join(''));
  const completionTokens = tokens(content ?? refusal ?? '');
  return {
    id: `chatcmpl-${createHash('sha256').update(rawBody).digest('hex').slice(0, 24)}`,
    object: 'chat.completion',
    created: Math.floor(nowMs / 1000),
    model: request.model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}
