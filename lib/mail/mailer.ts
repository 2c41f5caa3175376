import { Resend } from 'resend';
import type { EmailPayload } from './email-payload';
import { classifyProviderError, type SendOutcome } from './send-outcome';

/** A batch answer: the provider's ids in the order of the emails sent, or why it was not accepted. */
export type BatchOutcome = { kind: 'accepted'; providerIds: string[] } | Exclude<SendOutcome, { kind: 'accepted' }>;

/** The one door to the provider. The outbox never sees an SDK type. */
export type Mailer = {
  send(payload: EmailPayload, options: { idempotencyKey: string }): Promise<SendOutcome>;
  /** Up to 100 emails in one request (Resend's batch endpoint), under one Idempotency-Key. */
  sendBatch(payloads: EmailPayload[], options: { idempotencyKey: string }): Promise<BatchOutcome>;
};

export const MAX_BATCH_EMAILS = 100;
/** Emails per provider request: the batch endpoint's most, so a digest hour takes the fewest requests of the 2 a second. */
export const SEND_BATCH_SIZE = MAX_BATCH_EMAILS;

const toApi = (payload: EmailPayload) => ({
  from: payload.from,
  to: payload.to,
  subject: payload.subject,
  html: payload.html,
  text: payload.text,
  headers: payload.headers,
});

export function createResendMailer(options: { apiKey: string; baseUrl: string; timeoutMs?: number }): Mailer {
  const resend = new Resend(options.apiKey, { baseUrl: options.baseUrl });
  const timeoutMs = options.timeoutMs ?? 15_000;
  return {
    async send(payload, { idempotencyKey }) {
      // The signal bounds a hung provider: a timeout is an ambiguous outcome, not a hang.
      const { data, error, headers } = await resend.emails.send(toApi(payload), { idempotencyKey, signal: AbortSignal.timeout(timeoutMs) });
      if (error || !data) return classifyProviderError(error ?? { message: 'empty response' }, headers);
      return { kind: 'accepted', providerId: data.id };
    },
    async sendBatch(payloads, { idempotencyKey }) {
      const { data, error, headers } = await resend.batch.send(payloads.map(toApi), {
        idempotencyKey,
        batchValidation: 'strict',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (error || !data) {
        const outcome = classifyProviderError(error ?? { message: 'empty response' }, headers);
        return outcome.kind === 'accepted' ? { kind: 'ambiguous', status: null, error: 'accepted without ids' } : outcome;
      }
      const ids = data.data.map((d) => d.id);
      if (ids.length !== payloads.length)
        return { kind: 'ambiguous', status: 200, error: `batch answered ${ids.length} ids for ${payloads.length} emails` };
      return { kind: 'accepted', providerIds: ids };
    },
  };
}
