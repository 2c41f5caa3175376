import type { ChannelContent, ChannelLinks, ChannelPosting } from '../channel-content';
import { fitText, oneLine, periodOf, safeLink, titleOf } from './channel-text';

/**
 * The webhook channel's JSON payload, version 1, documented for receivers in docs/channels.md
 * ("Webhook payload"). Its shape follows the Standard Webhooks spec's recommendation
 * (`type`, `timestamp`, `data`) plus `version`: a change that only adds fields keeps version 1; a
 * change that removes, renames or retypes one is version 2.
 *
 * The strings are the postings' own, not escaped for any display (JSON needs none): the receiver
 * escapes them for wherever it shows them. They are cleaned to one line (no control or bidi
 * characters) and capped, so one feed's 1 MB title cannot make every receiver's request huge.
 */
export const WEBHOOK_PAYLOAD_VERSION = 1;

/** The longest strings a payload carries, in UTF-16 units (cut at a whole grapheme, with "…"). */
export const WEBHOOK_CAPS = { title: 500, company: 200, place: 200, pay: 100, reason: 200, reasons: 10, source: 100 } as const;

/** Postings one webhook message carries at most; more are counted in `more`. */
export const WEBHOOK_MAX_POSTINGS = 100;

/**
 * The most UTF-8 bytes a payload's JSON takes; postings past it are counted in `more`. Express's
 * JSON parser, behind many receivers, refuses a body over 100 kB (body-parser's `limit`, default
 * '100kb': https://github.com/expressjs/body-parser#limit), and the message row freezes the body:
 * 100 postings at every cap would be ~700 kB, most of the 1 MiB a Firestore document may hold.
 */
export const WEBHOOK_MAX_BYTES = 100_000;

export type WebhookEventType = 'postings.alert' | 'postings.digest' | 'scout.test';

export type WebhookPosting = {
  id: string;
  title: string;
  url: string | null;
  company: string | null;
  place: string | null;
  pay: string | null;
  reasons: string[];
  fit: number | null;
  score: number;
  source: string;
};

export type WebhookLinks = { preferences: string | null; archive: string | null };

export type WebhookPayload = {
  type: WebhookEventType;
  version: typeof WEBHOOK_PAYLOAD_VERSION;
  /** When the message was created (ISO 8601, UTC): the same on every retry of it. */
  timestamp: string;
  data: { period?: string; postings: WebhookPosting[]; more: number; links: WebhookLinks } | { message: string; links: WebhookLinks };
};

const capped = (raw: string | null | undefined, max: number): string | null => {
  const text = oneLine(raw);
  return text === '' ? null : fitText(text, max);
};

const score = (value: number) => (Number.isFinite(value) ? Math.max(0, Math.min(100, Math.round(value))) : 0);

/** One posting as the payload carries it. */
export function webhookPosting(posting: ChannelPosting): WebhookPosting {
  return {
    id: posting.id,
    title: fitText(titleOf(posting), WEBHOOK_CAPS.title),
    url: safeLink(posting.url),
    company: capped(posting.company, WEBHOOK_CAPS.company),
    place: capped(posting.place, WEBHOOK_CAPS.place),
    pay: capped(posting.pay, WEBHOOK_CAPS.pay),
    reasons: posting.reasons
      .map((r) => capped(r, WEBHOOK_CAPS.reason))
      .filter((r): r is string => r !== null)
      .slice(0, WEBHOOK_CAPS.reasons),
    fit: typeof posting.fit === 'number' && Number.isFinite(posting.fit) ? score(posting.fit) : null,
    score: score(posting.score),
    source: fitText(oneLine(posting.source), WEBHOOK_CAPS.source),
  };
}

const linksOf = (links: ChannelLinks): WebhookLinks => ({ preferences: safeLink(links.preferences), archive: safeLink(links.archive) });

/** The payload of an alert, a digest or the test event a new endpoint must answer with 2xx. */
export function renderWebhook(content: ChannelContent, createdAt: Date): WebhookPayload {
  const base = { version: WEBHOOK_PAYLOAD_VERSION, timestamp: createdAt.toISOString() } as const;
  const links = linksOf(content.links);
  if (content.type === 'test') {
    const message = 'Scout is connecting this endpoint. Answer with a 2xx status to verify it.';
    return { type: 'scout.test', ...base, data: { message, links } };
  }
  const postings = content.postings.map(webhookPosting);
  if (content.type === 'digest') {
    return { type: 'postings.digest', ...base, data: { period: periodOf(content.period), postings, more: content.more, links } };
  }
  return { type: 'postings.alert', ...base, data: { postings, more: content.more, links } };
}

/** What in the payload is over Scout's own bound; empty when it fits. */
export function webhookProblems(payload: WebhookPayload): string[] {
  const problems: string[] = [];
  if ('postings' in payload.data && payload.data.postings.length > WEBHOOK_MAX_POSTINGS)
    problems.push(`${payload.data.postings.length} postings`);
  const bytes = Buffer.byteLength(JSON.stringify(payload), 'utf8');
  if (bytes > WEBHOOK_MAX_BYTES) problems.push(`${bytes} bytes`);
  return problems;
}
