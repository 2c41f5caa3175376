import type { SinkMessage } from './types';

export const MAX_RECIPIENTS = 50;
export const MAX_BATCH_SIZE = 100;

/** An email as the API accepted it, before the sink gives it an id and a time. */
export type EmailDraft = Pick<SinkMessage, 'from' | 'to' | 'cc' | 'bcc' | 'replyTo' | 'subject' | 'html' | 'text' | 'headers' | 'tags'>;

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const FORMAT_HINT = 'The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.';
const BARE = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
const NAMED = /^[^<>]*<\s*([^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+)\s*>$/;
const TAG_PART = /^[A-Za-z0-9_-]{1,256}$/;

/** The bare, lower-cased address of `a@b.c` or `Name <a@b.c>`; null when it is neither. */
export function parseAddress(recipient: string): string | null {
  const trimmed = recipient.trim();
  if (BARE.test(trimmed)) return trimmed.toLowerCase();
  const named = NAMED.exec(trimmed);
  return named ? named[1].toLowerCase() : null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON null and an absent field mean the same to the API (the SDK sends `undefined`, which vanishes). */
const present = (value: unknown) => value !== undefined && value !== null;
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

function addressList(value: unknown, field: string, required: boolean): Checked<string[]> {
  if (!present(value)) return required ? { ok: false, message: `Missing \`${field}\` field.` } : { ok: true, value: [] };
  const list = typeof value === 'string' ? [value] : value;
  if (!isStringList(list)) {
    return { ok: false, message: `The \`${field}\` field must be a \`string\` or an array of \`string\`.` };
  }
  if (required && list.length === 0) return { ok: false, message: `Missing \`${field}\` field.` };
  if (list.some((item) => parseAddress(item) === null)) return { ok: false, message: `Invalid \`${field}\` field. ${FORMAT_HINT}` };
  return { ok: true, value: list.map((item) => item.trim()) };
}

function optionalString(value: unknown, field: string): Checked<string | null> {
  if (!present(value)) return { ok: true, value: null };
  return typeof value === 'string' ? { ok: true, value } : { ok: false, message: `The \`${field}\` field must be a \`string\`.` };
}

function headerMap(value: unknown): Checked<Record<string, string>> {
  if (!present(value)) return { ok: true, value: {} };
  if (!isRecord(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    return { ok: false, message: 'The `headers` field must be an object of `string` values.' };
  }
  return { ok: true, value: { ...(value as Record<string, string>) } };
}

function tagList(value: unknown): Checked<{ name: string; value: string }[]> {
  if (!present(value)) return { ok: true, value: [] };
  const valid =
    Array.isArray(value) &&
    value.every(
      (tag) =>
        isRecord(tag) &&
        typeof tag.name === 'string' &&
        TAG_PART.test(tag.name) &&
        typeof tag.value === 'string' &&
        TAG_PART.test(tag.value),
    );
  if (!valid) {
    return {
      ok: false,
      message: 'Invalid `tags` field. Tag names and values may only contain ASCII letters, numbers, underscores or dashes (at most 256).',
    };
  }
  return { ok: true, value: (value as { name: string; value: string }[]).map(({ name, value: v }) => ({ name, value: v })) };
}

/**
 * Fields the real API would honour but the sink cannot: refusing them loudly beats storing an
 * email that claims to be "delivered" while the caller expected it scheduled or templated.
 */
const UNSUPPORTED = ['scheduled_at', 'template', 'attachments'] as const;

export function checkEmail(input: unknown): Checked<EmailDraft> {
  if (!isRecord(input)) return { ok: false, message: 'The request body must be a JSON object.' };
  for (const field of UNSUPPORTED) {
    if (present(input[field])) return { ok: false, message: `The \`${field}\` field is not supported by the mail sink.` };
  }
  if (!present(input.from)) return { ok: false, message: 'Missing `from` field.' };
  if (typeof input.from !== 'string' || parseAddress(input.from) === null) {
    return { ok: false, message: `Invalid \`from\` field. ${FORMAT_HINT}` };
  }
  const to = addressList(input.to, 'to', true);
  if (!to.ok) return to;
  if (to.value.length > MAX_RECIPIENTS) {
    return { ok: false, message: `Too many recipients in the \`to\` field. The maximum is ${MAX_RECIPIENTS}.` };
  }
  if (typeof input.subject !== 'string' || input.subject.length === 0) {
    return {
      ok: false,
      message: present(input.subject) ? 'The `subject` field must be a non-empty `string`.' : 'Missing `subject` field.',
    };
  }
  const cc = addressList(input.cc, 'cc', false);
  if (!cc.ok) return cc;
  const bcc = addressList(input.bcc, 'bcc', false);
  if (!bcc.ok) return bcc;
  const replyTo = addressList(present(input.reply_to) ? input.reply_to : input.replyTo, 'reply_to', false);
  if (!replyTo.ok) return replyTo;
  const html = optionalString(input.html, 'html');
  if (!html.ok) return html;
  const text = optionalString(input.text, 'text');
  if (!text.ok) return text;
  if (!html.value && !text.value) return { ok: false, message: 'Missing `html` or `text` field.' };
  const headers = headerMap(input.headers);
  if (!headers.ok) return headers;
  const tags = tagList(input.tags);
  if (!tags.ok) return tags;
  return {
    ok: true,
    value: {
      from: input.from.trim(),
      to: to.value,
      cc: cc.value,
      bcc: bcc.value,
      replyTo: replyTo.value,
      subject: input.subject,
      html: html.value,
      text: text.value,
      headers: headers.value,
      tags: tags.value,
    },
  };
}

export type BatchMode = 'strict' | 'permissive';
export type CheckedBatch = { accepted: { index: number; draft: EmailDraft }[]; errors: { index: number; message: string }[] };

/**
 * Strict (the SDK's default) refuses the whole batch for one bad email; permissive keeps the good
 * ones and reports the rest by index, as Resend's `x-batch-validation: permissive` does.
 */
export function checkBatch(input: unknown, mode: BatchMode): Checked<CheckedBatch> {
  if (!Array.isArray(input)) return { ok: false, message: 'The request body must be a JSON array of emails.' };
  if (input.length === 0) return { ok: false, message: 'The batch must contain at least one email.' };
  if (input.length > MAX_BATCH_SIZE) {
    return { ok: false, message: `Too many emails in the batch. The maximum is ${MAX_BATCH_SIZE}.` };
  }
  const batch: CheckedBatch = { accepted: [], errors: [] };
  for (const [index, item] of input.entries()) {
    const checked =
      isRecord(item) && present(item.attachments)
        ? { ok: false as const, message: 'Attachments are not supported in batch emails.' }
        : checkEmail(item);
    if (checked.ok) batch.accepted.push({ index, draft: checked.value });
    else if (mode === 'strict') return { ok: false, message: `emails[${index}]: ${checked.message}` };
    else batch.errors.push({ index, message: checked.message });
  }
  return { ok: true, value: batch };
}
