import { z } from 'zod';
import type { Posting, Subscriber } from './scoring';

/** A text content part, as OpenAI-compatible clients send user content that is not a bare string. */
const contentSchema = z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() })), z.null()]);

const messageSchema = z.looseObject({ role: z.string().min(1), content: contentSchema.optional() });

/** The OpenAI chat-completions fields the fake reads; anything else is accepted and ignored, as OpenAI does. */
export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().optional(),
  response_format: z
    .union([
      z.looseObject({ type: z.literal('text') }),
      z.looseObject({ type: z.literal('json_object') }),
      z.looseObject({
        type: z.literal('json_schema'),
        json_schema: z.looseObject({
          name: z.string().min(1),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullish(),
        }),
      }),
    ])
    .optional(),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;
type Message = ChatRequest['messages'][number];

const minimumSchema = z.object({ amount: z.number(), currency: z.string() }).nullable().default(null);

const postingSchema = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  title: z.string().default(''),
  description: z.string().default(''),
});

const subscriberSchema = z.object({
  keywords: z.array(z.string()),
  excludes: z.array(z.string()).default([]),
  minPay: z
    .object({ fixed: minimumSchema, hourly: minimumSchema, yearly: minimumSchema })
    .default({ fixed: null, hourly: null, yearly: null }),
  about: z.string().default(''),
});

/**
 * The wire contract of the verdict request (docs/verdicts.md): the last user message holds
 * {posting}, and an earlier user message {subscriber} (the prefix one subscriber's requests share).
 * The batched shape Scout sent before, {subscriber, postings} in the last user message, is still
 * read, so a test can show what one posting's text does to the others' verdicts in a shared request.
 */
const lastMessageSchema = z.union([
  z.object({ subscriber: subscriberSchema, postings: z.array(postingSchema) }),
  z.object({ posting: postingSchema }),
]);
const subscriberMessageSchema = z.object({ subscriber: subscriberSchema });

export function textOf(message: Message): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

export type VerdictInput = { ok: true; subscriber: Subscriber; postings: Posting[] } | { ok: false; message: string };

const jsonOf = (message: Message): unknown => {
  try {
    return JSON.parse(textOf(message));
  } catch {
    return undefined;
  }
};

export function readVerdictInput(request: ChatRequest): VerdictInput {
  const users = request.messages.filter((m) => m.role === 'user');
  const last = users.at(-1);
  if (!last) return { ok: false, message: 'No user message: the last user message must hold {posting}.' };
  const json = jsonOf(last);
  if (json === undefined) return { ok: false, message: 'The last user message is not JSON: it must be {posting}.' };
  const parsed = lastMessageSchema.safeParse(json);
  if (!parsed.success) return { ok: false, message: `The last user message is not {posting}: ${z.prettifyError(parsed.error)}` };
  const pick = ({ id, title, description }: Posting) => ({ id, title, description });
  if ('postings' in parsed.data) return { ok: true, subscriber: parsed.data.subscriber, postings: parsed.data.postings.map(pick) };
  const subscriber = users
    .slice(0, -1)
    .map((m) => subscriberMessageSchema.safeParse(jsonOf(m)))
    .find((r) => r.success);
  if (!subscriber?.data) return { ok: false, message: 'No user message before the last one holds {subscriber}.' };
  return { ok: true, subscriber: subscriber.data.subscriber, postings: [pick(parsed.data.posting)] };
}
