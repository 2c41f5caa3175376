import { excludedBy, type MatchedText } from '../matching/score-posting';
import { keywordPattern, tokenize } from '../matching/text';
import { keywordTermProblem, normaliseKeyword } from '../subscribers/keyword-term';
import { MAX_EXCLUDES } from '../subscribers/preference-fields';
import { STOPWORDS } from './stopwords';

/**
 * The exclude the preferences page proposes, from what the subscriber marked "not a fit", with
 * its measured effect: "Exclude 'wordpress'? It would have removed 14 of your last 31 matches".
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
 * - The best removes the most "not a fit" postings, then the fewest recent matches, then is the
 *   longer term, then comes first alphabetically, so the same data always gives the same suggestion.
 */

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
};

export const MIN_NOT_A_FIT_SHARED = 2;
/** Shorter words are mostly noise ("ui", "qa" still come through as skills). */
const MIN_WORD_LENGTH = 3;
const MIN_SKILL_LENGTH = 2;

export function suggestExclude(input: {
  keywords: readonly string[];
  excludes: readonly string[];
  notAFit: readonly MatchedText[];
  recent: readonly MatchedText[];
}): ExcludeSuggestion | null {
  const { notAFit, recent } = input;
  if (input.excludes.length >= MAX_EXCLUDES || notAFit.length < MIN_NOT_A_FIT_SHARED || recent.length === 0) return null;

  // A cheap first cut: terms found in enough postings' own word and skill sets. Each such term
  // also matches by the rule below (a whole word or skill is what the pattern looks for).
  const seenIn = new Map<string, number>();
  for (const posting of notAFit) for (const term of candidatesOf(posting)) seenIn.set(term, (seenIn.get(term) ?? 0) + 1);

  let best: ExcludeSuggestion | null = null;
  for (const [term, count] of seenIn) {
    if (count < MIN_NOT_A_FIT_SHARED || !proposable(term, input)) continue;
    const notAFitRemoved = notAFit.filter((posting) => excludedBy([term], posting) !== null).length;
    if (notAFitRemoved < MIN_NOT_A_FIT_SHARED) continue;
    const removed = recent.filter((posting) => excludedBy([term], posting) !== null).length;
    if (removed === 0 || removed === recent.length) continue;
    const candidate = { term, removed, of: recent.length, notAFitRemoved, notAFitCount: notAFit.length };
    if (!best || better(candidate, best)) best = candidate;
  }
  return best;
}

function better(a: ExcludeSuggestion, b: ExcludeSuggestion): boolean {
  if (a.notAFitRemoved !== b.notAFitRemoved) return a.notAFitRemoved > b.notAFitRemoved;
  if (a.removed !== b.removed) return a.removed < b.removed;
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
