import type { EmailPayload } from './email-payload';

/**
 * The most an email's bodies may weigh, in UTF-8 bytes. Its outbox row stores them whole, and a
 * Firestore document holds at most 1 MiB: a digest of 100 postings with the longest titles,
 * links and reasons the feeds and the schema allow weighs about 1.9 MB (see
 * test/store/production-limits.test.ts). Gmail also clips a message past about 100 KB, so an
 * email this large is already past what a reader sees whole; ordinary postings put 20 items at
 * a small fraction of it.
 */
export const MAX_EMAIL_BYTES = 200_000;

/**
 * The most an email's HTML may weigh: Gmail shows "[Message clipped]" past 102 KB of it and hides
 * the rest, the footer's unsubscribe, archive and preferences links with it. 2 KB short of that,
 * for what a provider adds on the way (a tracking pixel, rewritten links).
 */
export const MAX_HTML_BYTES = 100 * 1024;

export const emailBytes = (payload: Pick<EmailPayload, 'html' | 'text' | 'subject'>) =>
  Buffer.byteLength(payload.html) + Buffer.byteLength(payload.text) + Buffer.byteLength(payload.subject);

/**
 * Composes an email from as many of `items` (best first) as fit: its bodies within `maxBytes` and
 * its HTML within MAX_HTML_BYTES. The rest are left out, and `compose` is told how many so it can
 * say so. Ordinary emails render once; an oversized one is cut in proportion and rendered again
 * until it fits (always at least one item).
 */
export async function composeWithinBudget<T>(
  items: T[],
  compose: (shown: T[], leftOut: number) => Promise<EmailPayload>,
  maxBytes = MAX_EMAIL_BYTES,
  maxHtmlBytes = MAX_HTML_BYTES,
): Promise<{ payload: EmailPayload; shown: number }> {
  let shown = items.length;
  for (;;) {
    const payload = await compose(items.slice(0, shown), items.length - shown);
    const over = Math.max(emailBytes(payload) / maxBytes, Buffer.byteLength(payload.html) / maxHtmlBytes);
    if (over <= 1 || shown <= 1) return { payload, shown };
    shown = Math.max(1, Math.min(shown - 1, Math.floor((shown * 0.95) / over)));
  }
}
