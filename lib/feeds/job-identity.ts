import { hashKey, type Posting } from './posting';

/**
 * When two postings are the same job. Two independent signs, each a key of its own in
 * postingKeys/ (posting-keys.ts):
 *
 * - the canonical URL: the same page, whatever tracking a board or a newsletter added to its link;
 * - the fingerprint: the same company, title and opening of the description, once the differences
 *   that copying a job between boards introduces are normalised away.
 *
 * Both are exact keys (a hash looked up by id), never a fuzzy search over stored postings: the cost
 * of knowing stays one read per key, whatever the number of postings.
 */

/**
 * Query parameters that say how a visitor arrived, never which job they see. Names are compared
 * lowercased; `utm_*` and the other prefixes below are dropped whatever follows them.
 * Parameters that identify a job on a career page (Greenhouse's `gh_jid`, Ashby's `ashby_jid`,
 * Lever's ids in the path) are kept: dropping them would make every job of a board one URL.
 */
const TRACKING_PARAMS = new Set([
  'gclid',
  'gbraid',
  'wbraid',
  'dclid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'igshid',
  'li_fat_id',
  'ref',
  'ref_src',
  'referer',
  'referrer',
  'source',
  'src',
  'gh_src',
  'lever-source',
  'lever-origin',
  'lever-via',
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
  'trk',
  'trackingid',
  'campaign',
]);
const TRACKING_PREFIXES = ['utm_', 'hsa_', 'pk_', 'mtm_', 'lever-source['];

const isTracking = (name: string) => {
  const lower = name.toLowerCase();
  return TRACKING_PARAMS.has(lower) || TRACKING_PREFIXES.some((prefix) => lower.startsWith(prefix));
};

/**
 * The address of a job page with what varies between links to it taken out: the scheme (http and
 * https name the same page), a `www.` prefix, the host's case, a default port, the fragment,
 * tracking parameters, the order of the other parameters and a trailing slash. The path keeps its
 * case (some boards' ids are case-sensitive). Null for anything that is not an http(s) URL.
 *
 *   canonicalUrl('https://www.Acme.com/jobs/42/?utm_source=x&b=2&a=1#apply') === 'acme.com/jobs/42?a=1&b=2'
 */
export function canonicalUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const host = parsed.host.toLowerCase().replace(/^www\./, '');
  const path = parsed.pathname.replace(/\/+$/, '');
  const params = [...parsed.searchParams.entries()]
    .filter(([name]) => !isTracking(name))
    .sort(([a, av], [b, bv]) => (a === b ? compare(av, bv) : compare(a, b)));
  const query = params.length > 0 ? `?${new URLSearchParams(params).toString()}` : '';
  return `${host}${path}${query}`;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Characters of normalised description the fingerprint reads: the opening says which job it is; the tail is boilerplate boards cut differently. */
export const FINGERPRINT_DESCRIPTION_CHARS = 500;
/**
 * Without a company, a fingerprint needs at least this much normalised description: "React dev
 * wanted" + "Budget: $300" is what many unrelated jobs say, and collapsing them would lose jobs.
 */
export const FINGERPRINT_MIN_DESCRIPTION_CHARS = 120;
/** Bump when the normalisation changes: keys made the old way then simply expire instead of meaning something else. */
const FINGERPRINT_VERSION = 'v1';

/** Legal-form words at the end of a company name: "Acme, Inc." and "Acme" are one employer. */
const LEGAL_SUFFIX =
  /(?:\s+(?:inc|incorporated|llc|ltd|limited|gmbh|ag|sa|sas|sarl|bv|nv|plc|corp|corporation|co|company|oy|ab|as|srl|spa|pty|pte))+$/;

/**
 * Text as the fingerprint compares it: Unicode compatibility forms folded (NFKD) and accents
 * dropped, lowercased, tags and character entities left by a board that double-encodes removed,
 * every run of punctuation, symbols and whitespace made one space, trimmed.
 */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/<\/?[a-z][^>]*>/g, ' ')
    .replace(/&(?:[a-z]+|#\d+|#x[0-9a-f]+);/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * A hash of what makes a job this job, the same for the copies of it on two boards or reposted:
 * - company: normalised, legal-form suffix dropped ("Acme, Inc." = "acme");
 * - title: normalised, digits kept ("Engineer II" and "Engineer III" are two jobs);
 * - description: normalised, every digit dropped (budgets, dates, reference numbers and counts
 *   differ between copies of one job: "Budget: $300" reposted as "Budget: $600" is the same
 *   job), then its first FINGERPRINT_DESCRIPTION_CHARS characters.
 * Null when the posting has no title, or has no company and less than
 * FINGERPRINT_MIN_DESCRIPTION_CHARS of description: too little to tell one job from another.
 */
export function jobFingerprint(posting: Pick<Posting, 'title' | 'description' | 'company'>): string | null {
  const company = normaliseText(posting.company ?? '').replace(LEGAL_SUFFIX, '');
  const title = normaliseText(posting.title);
  const description = normaliseText(posting.description.replace(/\p{N}+/gu, ' '))
    .replace(/ {2,}/g, ' ')
    .slice(0, FINGERPRINT_DESCRIPTION_CHARS)
    .trim();
  if (!title) return null;
  if (!company && description.length < FINGERPRINT_MIN_DESCRIPTION_CHARS) return null;
  return hashKey([FINGERPRINT_VERSION, company, title, description].join('\u0000'));
}
