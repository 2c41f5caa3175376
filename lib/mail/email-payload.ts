import { sha256Hex } from '../store/short-hash';

/** Exactly what is handed to the provider; stored on the outbox row so a retry is byte-identical. */
export type EmailPayload = {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
};

export const hashPayload = (payload: EmailPayload) =>
  sha256Hex(
    JSON.stringify([payload.from, payload.to, payload.subject, payload.html, payload.text, Object.entries(payload.headers).sort()]),
  );
