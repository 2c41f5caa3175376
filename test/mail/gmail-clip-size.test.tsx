import { describe, expect, it } from 'vitest';
import { MAX_TITLE } from '../../lib/feeds/posting';
import { MAX_SIGHTINGS } from '../../lib/feeds/store-postings';
import { composeDailyDigest, type ScoredPosting } from '../../lib/mail/compose-email';
import { composeWithinBudget, MAX_HTML_BYTES } from '../../lib/mail/email-budget';
import { configSchema } from '../../lib/runtime/config';
import { MAX_KEYWORD_LENGTH, MAX_KEYWORDS } from '../../lib/subscribers/preference-fields';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { MAX_REASON_LENGTH } from '../../lib/verdicts/wire';
import { berlinSubscriber, now, realisticPosting, settings } from './email-fixtures';

/**
 * Gmail shows "[Message clipped]" past 102 KB of HTML and hides the rest, the footer's unsubscribe
 * and archive links with it. A digest at the deployment's default size, every posting's fields at
 * their caps, must stay under it.
 */
const GMAIL_CLIP_BYTES = 102 * 1024;
const DEFAULT_DIGEST_ITEMS = configSchema.shape.DIGEST_MAX_ITEMS.parse(undefined);

/** Words, not one run of letters: text at its cap as a feed writes it. */
const words = (length: number, seed: string) => `${seed} `.repeat(Math.ceil(length / (seed.length + 1))).slice(0, length);
/** The longest address there can be (254 characters): every signed link carries its sealed id. */
const longestEmail = `${'l'.repeat(64)}@${'d'.repeat(63)}.${'o'.repeat(63)}.${'m'.repeat(56)}.test`;
const BOARDS = [
  'We Work Remotely',
  'Greenhouse',
  'Remotive',
  'Lever',
  'Ashby',
  'Remote OK',
  'Hacker News',
  'Upwork',
  'Workable',
  'SmartRecruiters',
].slice(0, MAX_SIGHTINGS);
/** What store-postings.ts keeps of a source's name on a card. */
const MAX_LABEL_CHARS = 100;
const keywords = Array.from({ length: MAX_KEYWORDS }, (_, i) => words(MAX_KEYWORD_LENGTH, `keyword${i}`).trim());

/** A link at the length a posting's link may have (safe-url.ts keeps up to 2,048 characters). */
const LONGEST_URL = 2_048;

function largestItem(n: number, labelAtCap: boolean): ScoredPosting {
  const base = realisticPosting(n);
  return {
    posting: {
      ...base,
      title: words(MAX_TITLE, `Senior engineer ${n}`),
      ...(labelAtCap ? { url: `https://jobs.example.com/${n}?ref=${'r'.repeat(LONGEST_URL)}`.slice(0, LONGEST_URL) } : {}),
      // to-posting.ts caps company and location at 200 characters each.
      company: words(200, 'Acme Holdings'),
      location: words(200, 'Berlin Germany'),
      // Longer than an excerpt: the card shows its 280 characters and an ellipsis.
      description: words(5_000, 'We build the payments platform'),
      budget: { amount: 9_999_999, maxAmount: 99_999_999, currency: 'USD', kind: 'yearly' },
      previousBudget: { amount: 1_000_000, maxAmount: 9_999_999, currency: 'USD', kind: 'yearly' },
      firstSeenAt: new Date(now.getTime() - 20 * 86_400_000),
      repostedAt: now,
      // Every source a card lists (MAX_SIGHTINGS), by the names sources have and their links as boards write them.
      sightings: BOARDS.map((label, i) => ({
        source: `source-${i}`,
        label: labelAtCap ? words(MAX_LABEL_CHARS, label) : label,
        url: labelAtCap
          ? `https://jobs.board-${i}.example.com/${n}?q=${'x'.repeat(LONGEST_URL)}`.slice(0, LONGEST_URL)
          : `https://jobs.board-${i}.example.com/companies/acme-holdings/jobs/${4_100_000 + n}-senior-engineer?utm_source=scout`,
        seenAt: now,
      })),
    },
    score: 100,
    // Every keyword in the title and the budget: the most reasons scoring gives.
    reasons: [...keywords.map((keyword) => `“${keyword}” in the title`), 'budget $9,999,999–$99,999,999/year'],
    fit: 100,
    fitReason: words(MAX_REASON_LENGTH, 'Fits because'),
  };
}

/** The digest as the flush composes it: through composeWithinBudget, which leaves postings out rather than pass the clip. */
const largestDigest = async (labelAtCap: boolean) =>
  composeWithinBudget(
    Array.from({ length: DEFAULT_DIGEST_ITEMS }, (_, n) => largestItem(n, labelAtCap)),
    (items, leftOut) =>
      composeDailyDigest({
        subscriber: { ...berlinSubscriber, id: subscriberId(longestEmail), email: longestEmail, keywords, feedTokenVersion: 1_000_000 },
        items,
        moreCount: 10_000 + leftOut,
        day: '2026-11-30',
        filteredOut: { underMinBudget: 100_000, excluded: 100_000, notAFit: 100_000, minPay: berlinSubscriber.minPay },
        coverage: { postings: 1_000_000, sources: 500, unreachable: 500, unreachableSince: now },
        nextDigest:
          'Your next weekly digest comes on Wednesday 30 September at 23:00 America/Argentina/ComodRivadavia, with what Scout finds until then.',
        settings,
        now,
      }),
  );

describe('a digest stays under Gmail’s clipping size', () => {
  it(`${DEFAULT_DIGEST_ITEMS} postings, every title, employer, excerpt, reason and link at its cap, on ${MAX_SIGHTINGS} sources each: all of them fit`, async () => {
    const { payload, shown } = await largestDigest(false);
    const bytes = Buffer.byteLength(payload.html);
    console.log(`largest digest HTML measured: ${bytes} bytes (${(bytes / 1024).toFixed(1)} KB) of Gmail's ${GMAIL_CLIP_BYTES / 1024} KB`);
    expect(shown).toBe(DEFAULT_DIGEST_ITEMS);
    expect(payload.html.match(/>View posting</g)).toHaveLength(DEFAULT_DIGEST_ITEMS);
    expect(bytes).toBeLessThan(GMAIL_CLIP_BYTES);
  });

  it('every source name at its 100-character cap and every link at 2,048 characters too: the digest leaves postings out, says how many, and stays under the clip', async () => {
    const { payload, shown } = await largestDigest(true);
    const bytes = Buffer.byteLength(payload.html);
    console.log(
      `with every name and link at its cap: ${bytes} bytes (${(bytes / 1024).toFixed(1)} KB), ${shown} of ${DEFAULT_DIGEST_ITEMS} postings shown`,
    );
    expect(bytes).toBeLessThanOrEqual(MAX_HTML_BYTES);
    expect(MAX_HTML_BYTES).toBeLessThan(GMAIL_CLIP_BYTES);
    expect(shown).toBeGreaterThanOrEqual(1);
    expect(shown).toBeLessThan(DEFAULT_DIGEST_ITEMS);
    // The footer, with its unsubscribe link, is inside what Gmail shows.
    expect(payload.html).toContain('Unsubscribe');
  });
});
