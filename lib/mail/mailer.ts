import { Resend } from 'resend';
import type { EmailPayload } from './email-payload';
import { classifyProviderError, type SendOutcome } from './send-outcome';

/** The one door to the provider. The outbox never sees an SDK type. */
export type Mailer = { send(payload: EmailPayload, options: { idempotencyKey: string }): Promise<SendOutcome> };

export function createResendMailer(options: { apiKey: string; baseUrl: string; timeoutMs?: number }): Mailer {
  const resend = new Resend(options.apiKey, { baseUrl: options.baseUrl });
  const timeoutMs = options.timeoutMs ?? 15_000;
  return {
    async send(payload, { idempotencyKey }) {
      const { data, error, headers } = await resend.emails.send(
        { from: payload.from, to: payload.to, subject: payload.subject, html: payload.html, text: payload.text, headers: payload.headers },
        // The signal bounds a hung provider: a timeout is an ambiguous outcome, not a hang.
        { idempotencyKey, signal: AbortSignal.timeout(timeoutMs) },
      );
      if (error || !data) return classifyProviderError(error ?? { message: 'empty response' }, headers);
      return { kind: 'accepted', providerId: data.id };
    },
  };
}
