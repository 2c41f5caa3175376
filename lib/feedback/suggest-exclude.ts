import { excludedBy, type MatchedText } from '../matching/score-posting';
import { keywordPattern, tokenize } from '../matching/text';
import { keywordTermProblem, normaliseKeyword } from '../query/keyword-term';
import { MAX_EXCLUDES } from '../subscribers/preference-fields';
import { STOPWORDS } from './stopwords';

/**
 * The exclude the preferences page proposes, from what the subscriber marked "not a fit", with
 * its measured effect: "Exclude 'wordpress'? It would have removed 5 of your last 31 matches".
 * Pure: the postings come in, one suggestion (or none) comes out; lib/feedback/read-exclude-suggestion.ts
 * reads them.
 *
 * - Candidates are the words (letter and digit runs, as matching sees them) and the skills of the
 *   "not a fit" postings, that are valid excludes, not stopwords, not one of the subscriber's
 *   keywords (nor a word of one) and not already covered by an exclude.
 * - Every count uses the one exclude rule (`excludedBy`, lib/matching/score-posting.ts): the term in
 *   the title, the skills or the description.
 * - A candidate must remove at least MIN_NOT_A_FIT_SHARED of the "not a fit" postings (one is not a
 *   pattern), and some but not all of the recent matches (removing none measures nothing; removing
 *   all would leave the subscriber nothing).
 * - It must not be a source's boilerplate: a word on BOILERPLATE_SHARE or more of the postings of one
 *   source at hand ("Web Development", the category Upwork puts on most of a web developer's
 *   matches; "Headquarters" in every We Work Remotely posting) says where a posting came from, not
 *   why it was not a fit, and excluding it removes that source's postings wholesale.
 * - It may remove at most MAX_KEPT_REMOVED_SHARE of the kept matches (the recent matches not marked
 *   "not a fit"): a word common among the postings the subscriber kept is part of what they
 *   subscribed for, however often it shows up in the marked ones.
 * - The best removes the most "not a fit" postings, then the fewest kept matches, then is the
 *   longer term, then comes first alphabetically, so the same data always gives the same suggestion.
 */

/** A recent match, as stored in jobs/: its id tells a kept match from a marked one, its source whose boilerplate it carries. */
export type RecentMatch = MatchedText & { id: string; source: string };
/** A "not a fit" snapshot (feedback.ts), keyed by the posting it was about. */
export type NotAFitPosting = MatchedText & { jobId: string; source: string };

export type ExcludeSuggestion = {
  /** Normalised as an exclude is stored (keyword-term.ts). */
  term: string;
  /** N: recent matches it would have removed… */
  removed: number;
  /** …of M, the recent matches whose posting is still stored. */
  of: number;
  /** How many of the "not a fit" postings it covers, of how many. */
  notAFitRemoved: number;
  notAFitCount: number;
  /** How many of the kept matches (recent ones not marked "not a fit") it would have removed, of how many. */
  keptRemoved: number;
  keptCount: number;
};

export const MIN_NOT_A_FIT_SHARED = 2;
/**
 * At most a fifth of the kept matches may go. An exclude is for good: it removes every future
 * posting with the word, and the kept matches are the only evidence of what the subscriber wants.
 * A fifth lets a word through that marks a side-line of their matches (WordPress among React work)
 * and stops one that runs through them (in the walk-through, 'web' would have removed 8 of 11).
 * Rounded down: with fewer than five kept matches, none may go.
 */
export const MAX_KEPT_REMOVED_SHARE = 1 / 5;
/**
 * A word on four in five or more of one source's postings at hand is that source's boilerplate. In
 * the real corpus a board's template words sit at 90–100% of its postings (the RSS boards'
 * "headquarters" and "url", We Work Remotely's template, 91%; Ashby's "fulltime" 100%) while topic
 * words stay below it (Upwork's commonest, "design", 34%; Lever's "software", over four employers'
 * boards, 69%); a subscriber's own dislike only reaches this share of a source when they marked
 * nearly everything it sent, and then no word can tell why.
 */
export const BOILERPLATE_SHARE = 4 / 5;
/** Fewer postings of a source than this measure nothing about its boilerplate. */
export const MIN_SOURCE_POSTINGS = 5;
/** Shorter words are mostly noise ("ui", "qa" still come through as skills). */
const MIN_WORD_LENGTH = 3;
const MIN_SKILL_LENGTH = 2;

export function suggestExclude(input: {
  keywords: readonly string[];
  excludes: readonly string[];
  notAFit: readonly NotAFitPosting[];
  recent: readonly RecentMatch[];
}): ExcludeSuggestion | null {
  const { notAFit, recent } = input;
  if (input.excludes.length >= MAX_EXCLUDES || notAFit.length < MIN_NOT_A_FIT_SHARED || recent.length === 0) return null;

  const marked = new Set(notAFit.map((posting) => posting.jobId));
  const kept = recent.filter((posting) => !marked.has(posting.id));
  const maxKeptRemoved = Math.floor(kept.length * MAX_KEPT_REMOVED_SHARE);
  const sources = postingsBySource(input);

  // A cheap first cut: terms found in enough postings' own word and skill sets. Each such term
  // also matches by the rule below (a whole word or skill is what the pattern looks for).
  const seenIn = new Map<string, number>();
  for (const posting of notAFit) for (const term of candidatesOf(posting)) seenIn.set(term, (seenIn.get(term) ?? 0) + 1);

  let best: ExcludeSuggestion | null = null;
  for (const [term, count] of seenIn) {
    if (count < MIN_NOT_A_FIT_SHARED || !proposable(term, input)) continue;
    const removes = (posting: MatchedText) => excludedBy([term], posting) !== null;
    const notAFitRemoved = notAFit.filter(removes).length;
    if (notAFitRemoved < MIN_NOT_A_FIT_SHARED) continue;
    const removed = recent.filter(removes).length;
    if (removed === 0 || removed === recent.length) continue;
    const keptRemoved = kept.filter(removes).length;
    if (keptRemoved > maxKeptRemoved) continue;
    if (sources.some((postings) => postings.filter(removes).length >= postings.length * BOILERPLATE_SHARE)) continue;
    const candidate = {
      term,
      removed,
      of: recent.length,
      notAFitRemoved,
      notAFitCount: notAFit.length,
      keptRemoved,
      keptCount: kept.length,
    };
    if (!best || better(candidate, best)) best = candidate;
  }
  return best;
}

/**
 * The postings at hand, each once (a marked posting is usually a recent match too), grouped by
 * source; only the sources with enough of them to measure a share on.
 */
function postingsBySource(input: { notAFit: readonly NotAFitPosting[]; recent: readonly RecentMatch[] }): MatchedText[][] {
  const byId = new Map<string, RecentMatch | NotAFitPosting>();
  for (const posting of input.recent) byId.set(posting.id, posting);
  for (const posting of input.notAFit) if (!byId.has(posting.jobId)) byId.set(posting.jobId, posting);
  const bySource = new Map<string, MatchedText[]>();
  for (const posting of byId.values()) bySource.set(posting.source, [...(bySource.get(posting.source) ?? []), posting]);
  return [...bySource.values()].filter((postings) => postings.length >= MIN_SOURCE_POSTINGS);
}

function better(a: ExcludeSuggestion, b: ExcludeSuggestion): boolean {
  // Marks are a sample: a subscriber marks a few of the postings they dislike, and the rest sit
  // among the kept matches. So a kept match removed is not weighed against a marked one (the word
  // that names the whole dislike removes its unmarked postings too); the ceiling bounds those.
  if (a.notAFitRemoved !== b.notAFitRemoved) return a.notAFitRemoved > b.notAFitRemoved;
  if (a.keptRemoved !== b.keptRemoved) return a.keptRemoved < b.keptRemoved;
  // The same effect today: the longer term ("google ads" over "ads") is the narrower one tomorrow.
  if (a.term.length !== b.term.length) return a.term.length > b.term.length;
  return a.term < b.term;
}

/** A posting's words (from its title, description and skills) and its skills, each once, spelled as an exclude. */
function candidatesOf(posting: MatchedText): Set<string> {
  const terms = new Set<string>();
  for (const word of tokenize([posting.title, posting.description, ...posting.skills].join(' '))) {
    const term = word.normalize('NFC');
    if ([...term].length >= MIN_WORD_LENGTH) terms.add(term);
  }
  for (const skill of posting.skills) {
    const term = normaliseKeyword(skill);
    if ([...term].length >= MIN_SKILL_LENGTH) terms.add(term);
  }
  return terms;
}

function proposable(term: string, input: { keywords: readonly string[]; excludes: readonly string[] }): boolean {
  if (keywordTermProblem(term, 'exclude') !== null) return false;
  if (!/\p{L}/u.test(term) || STOPWORDS.has(term)) return false;
  // Excluding a keyword, or a word of one ("react" for "react native"), would remove everything
  // that keyword matches. A phrase holding a keyword ("react native" for "react") only narrows it.
  const pattern = keywordPattern(term);
  if (input.keywords.some((keyword) => pattern.test(keyword))) return false;
  // Already excluded: an exclude that matches the term removes every posting the term would.
  return !input.excludes.some((exclude) => keywordPattern(exclude).test(term));
}
