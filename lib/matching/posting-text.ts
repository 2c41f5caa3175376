import type { Posting } from '../feeds/posting';
import { firstToken, keywordPattern, tokenize } from './text';

/** The parts of a posting that keywords and excludes are looked for in. */
export type MatchedText = Pick<Posting, 'title' | 'skills' | 'description'>;

/** Where a term was found, in the order a reason names it. */
export type TextField = 'title' | 'skills' | 'description';
const FIELDS: readonly TextField[] = ['title', 'skills', 'description'];

/**
 * One posting's text as matching reads it: where a term is named (title, skills, description, the
 * first that names it), each term looked for once however many subscribers use it. A posting's
 * whole text is long (up to 40,000 chars) and many subscribers share their keywords, so looking a
 * term up again per subscriber would make matching grow with text × candidates; here it grows with
 * text × the distinct terms the candidates use. A term whose first word is not among the
 * posting's words is not looked for at all: it cannot be there (the index relies on the same rule).
 */
export type PostingText = { fieldNaming: (term: string) => TextField | null };

/** Compiled keyword patterns, shared by every posting of one matching pass. */
export type PatternCache = Map<string, RegExp>;

export function readPostingText(posting: MatchedText, patterns: PatternCache = new Map()): PostingText {
  const fields: Record<TextField, string> = { title: posting.title, skills: posting.skills.join(' · '), description: posting.description };
  let words: Set<string> | null = null;
  const found = new Map<string, TextField | null>();
  const patternOf = (term: string) => {
    let pattern = patterns.get(term);
    if (!pattern) patterns.set(term, (pattern = keywordPattern(term)));
    return pattern;
  };
  return {
    fieldNaming(term) {
      const known = found.get(term);
      if (known !== undefined) return known;
      words ??= new Set(tokenize(`${fields.title} ${fields.skills} ${fields.description}`));
      const first = firstToken(term);
      const pattern = first === null || words.has(first) ? patternOf(term) : null;
      const field = pattern ? (FIELDS.find((f) => pattern.test(fields[f])) ?? null) : null;
      found.set(term, field);
      return field;
    },
  };
}
