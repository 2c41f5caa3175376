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

/** The wire contract of the verdict request: what Scout puts in the last user message. */
const verdictInputSchema = z.object({
  subscriber: z.object({
    keywords: z.array(z.string()),
    excludes: z.array(z.string()).default([]),
    minPay: z
      .object({ fixed: minimumSchema, hourly: minimumSchema, yearly: minimumSchema })
      .default({ fixed: null, hourly: null, yearly: null }),
    about: z.string().default(''),
  }),
  postings: z.array(
    z.looseObject({
      id: z.union([z.string(), z.number()]).transform(String),
      title: z.string().default(''),
      description: z.string().default(''),
    }),
  ),
});

export function textOf(message: Message): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

export type VerdictInput = { ok: true; subscriber: Subscriber; postings: Posting[] } | { ok: false; message: string };

export function readVerdictInput(request: ChatRequest): VerdictInput {
  const last = request.messages.findLast((m) => m.role === 'user');
  if (!last) return { ok: false, message: 'No user message: the last user message must hold {subscriber, postings}.' };
  let json: unknown;
  try {
    json = JSON.parse(textOf(last));
  } catch {
    return { ok: false, message: 'The last user message is not JSON: it must be {subscriber, postings}.' };
  }
  const parsed = verdictInputSchema.safeParse(json);
  if (!parsed.success)
    return { ok: false, message: `The last user message is not {subscriber, postings}: ${z.prettifyError(parsed.error)}` };
  const { subscriber, postings } = parsed.data;
  return { ok: true, subscriber, postings: postings.map(({ id, title, description }) => ({ id, title, description })) };
}
