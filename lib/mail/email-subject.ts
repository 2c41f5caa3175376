import type { Budget, PayKind } from '../pay/pay';

/**
 * What an email of postings puts on the inbox line. A phone shows about the first 35–40
 * characters of a subject and desktop clients about 60, so the subject leads with the count and
 * the best match ("3 new: Senior React Engineer at Acme, $120k–$150k") and stays within
 * SUBJECT_MAX characters where the title allows; the preheader, the grey line after it, carries
 * the titles that follow and never repeats the subject. docs/subscribers.md states the rules.
 */
export const SUBJECT_MAX = 60;

/** What a subject names of the best match: its title, who hires, and what it pays in short. */
export type SubjectMatch = { title: string; company?: string | null; pay?: string | null };

const ELLIPSIS = '…';
/** A title is cut at a word when one ends in its last part; one long word is cut where it must be. */
const WORD_CUT_SHARE = 0.6;

const length = (text: string) => Array.from(text).length;

/** `text` in at most `max` characters, cut at a word when a word ends near the limit, with an ellipsis. */
export function truncateAtWord(text: string, max: number): string {
  const chars = Array.from(text.trim());
  if (chars.length <= max) return chars.join('');
  if (max <= 1) return ELLIPSIS.slice(0, max);
  const room = chars.slice(0, max - 1).join('');
  const space = room.lastIndexOf(' ');
  const cut = space >= room.length * WORD_CUT_SHARE ? room.slice(0, space) : room;
  return `${cut.replace(/[\s,;:–—\-·(/]+$/u, '')}${ELLIPSIS}`;
}

/**
 * "Senior React Engineer at Acme, $120k–$150k" in at most `room` characters: the whole line when
 * it fits, else without the pay, else without the employer, else the title cut at a word. The
 * title always stays: it is what the reader decides on.
 */
export function describeMatch(match: SubjectMatch, room: number): string {
  const title = match.title.trim() || 'a new posting';
  const company = match.company?.trim() ? ` at ${match.company.trim()}` : '';
  const pay = match.pay?.trim() ? `, ${match.pay.trim()}` : '';
  for (const candidate of [`${title}${company}${pay}`, `${title}${company}`, `${title}${pay}`, title]) {
    if (length(candidate) <= room) return candidate;
  }
  return truncateAtWord(title, room);
}

/** The count first, then the best match in what is left of SUBJECT_MAX (never less than a few words). */
function countFirst(prefix: string, match: SubjectMatch | null): string {
  if (!match) return prefix.replace(/: $/, '');
  return `${prefix}${describeMatch(match, Math.max(SUBJECT_MAX - length(prefix), MIN_TITLE_ROOM))}`;
}
/** Below this many characters a title says nothing: the subject then runs past SUBJECT_MAX instead. */
const MIN_TITLE_ROOM = 20;

/** An instant alert: "3 new: Senior React Engineer at Acme, $120k–$150k". */
export const alertSubject = (count: number, best: SubjectMatch | null) => countFirst(`${count} new: `, best);

/**
 * A digest: "7 in your digest: Senior React Engineer at Acme". The count is every match of the
 * period, those listed and those left out with a lower score, as the digest's own line says.
 */
export const digestSubject = (count: number, best: SubjectMatch | null) => countFirst(`${count} in your digest: `, best);

const matchesOf = (count: number) => (count === 1 ? '1 match' : `${count} matches`);

/**
 * The first email after a confirmation: "Welcome to Scout: 5 matches, top: Senior React Engineer".
 * It begins with "Welcome" so it reads as the answer to the confirmation, not as one more alert.
 */
export const welcomeSubject = (count: number, best: SubjectMatch | null) =>
  best ? countFirst(`Welcome to Scout: ${matchesOf(count)}, top: `, best) : `Welcome to Scout: ${matchesOf(count)}`;

/**
 * The preheader: the titles after the first ("Also: Data Engineer · Platform Lead · 4 more"), or,
 * for a single posting, what its card says first after the title (who hires, the excerpt). Never
 * the subject again: the inbox already shows it on the line above.
 */
export function postingsPreheader(items: readonly { title: string; employer?: string | null; excerpt?: string }[], moreCount = 0): string {
  const [first, ...rest] = items;
  if (!first) return '';
  if (rest.length === 0) {
    return [first.employer, first.excerpt].filter((part): part is string => Boolean(part?.trim())).join(' — ');
  }
  const titles = rest.slice(0, PREHEADER_TITLES).map((item) => truncateAtWord(item.title, PREHEADER_TITLE_MAX));
  const later = rest.length - titles.length + moreCount;
  return `Also: ${titles.join(' · ')}${later > 0 ? ` · ${later} more` : ''}`;
}
/** A preview shows about 90–150 characters: three titles, each cut to a line's worth, fill it. */
const PREHEADER_TITLES = 3;
const PREHEADER_TITLE_MAX = 45;

const SHORT_PER: Record<PayKind, string> = { fixed: ' fixed', hourly: '/hr', daily: '/day', monthly: '/mo', yearly: '' };
const shortMoneyFormats = new Map<string, Intl.NumberFormat>();

function shortMoney(amount: number, currency: string): string {
  let format = shortMoneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency, notation: 'compact', maximumFractionDigits: 1 });
    shortMoneyFormats.set(currency, format);
  }
  // "$120K" → "$120k", as job boards write it.
  return format.format(amount).replace(/K$/, 'k');
}

/**
 * Pay as a subject has room for: "$120k–$150k" (a year's pay needs no unit), "$45–$60/hr",
 * "$4k fixed". Null when the currency is not stated: a bare number in a subject would read as a
 * promise the posting does not make. The card shows the full amount.
 */
export function subjectPay(budget: Budget | null | undefined): string | null {
  if (!budget || !budget.currency) return null;
  const low = shortMoney(budget.amount, budget.currency);
  const range = budget.maxAmount && budget.maxAmount > budget.amount ? `${low}–${shortMoney(budget.maxAmount, budget.currency)}` : low;
  return `${range}${SHORT_PER[budget.kind]}`;
}
