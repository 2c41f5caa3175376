import { z } from 'zod';

/**
 * One keyword or exclude, the same rule wherever one enters Scout: signup, the preferences form,
 * `scout users add` and `scout users import`. Matching compares a term with a posting's words
 * (letter and digit runs, lib/matching/text.ts), so a term may hold only what such words and the
 * skills people search for are made of; anything else (markup, control or invisible characters)
 * could never match and would only come back as noise in emails and on the ops page. Stored
 * terms are not re-checked: the rule guards the way in, and an old subscriber fixes theirs on save.
 */

export const MAX_KEYWORD_LENGTH = 60;

/** The punctuation real skills use: c++, c#, node.js, front-end, ui/ux, r&d, o'reilly. */
export const KEYWORD_CHARACTERS = "letters, digits, spaces and + # . - / & '";

const WHITE_SPACE = /\p{White_Space}+/gu;
// Marks (\p{M}) are part of letters in many scripts: Hindi vowel signs and virama, Arabic harakat.
const ALLOWED = /^[\p{L}\p{M}\p{N} +#./&'-]$/u;
// Zero-width, bidi and other format characters (Cf), and the letters and marks that never show
// (Hangul fillers, variation selectors, tags): they would split a word without being seen.
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * The one spelling matching and de-duplication see: runs of white space (tabs too) as one space,
 * trimmed, lowercased, composed (NFC, so "é" typed as e + accent is the same term as "é").
 */
export const normaliseKeyword = (term: string) => term.replace(WHITE_SPACE, ' ').replace(/^ | $/g, '').toLowerCase().normalize('NFC');

/**
 * The first character the rule refuses, named so the message reads the same in a page, JSON or a
 * terminal: `"<" is not allowed`, or by code point for one that does not show (never echoed raw).
 */
function refusedCharacter(term: string): string | null {
  for (const character of term) {
    if (ALLOWED.test(character) && !INVISIBLE.test(character)) continue;
    const codePoint = `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    if (/^\p{Cc}$/u.test(character)) return `${codePoint}, a control character, is not allowed`;
    if (INVISIBLE.test(character)) return `${codePoint}, an invisible character, is not allowed`;
    if (/^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(character)) return `"${character}" is not allowed`;
    return `${codePoint}, an unprintable character, is not allowed`;
  }
  return null;
}

/** Why a normalised term is refused, worded for `noun` ("keyword", "exclude"); null when it is fine. */
export function keywordTermProblem(term: string, noun: string): string | null {
  const refused = refusedCharacter(term);
  if (refused) return `each ${noun} may use only ${KEYWORD_CHARACTERS} (${refused})`;
  // "++" or "-" alone has no word to match (the matcher indexes letter and digit runs).
  if (!LETTER_OR_DIGIT.test(term))
    return term === ''
      ? `each ${noun} needs a letter or digit`
      : `each ${noun} needs a letter or digit: "${term}" can never match a posting's words`;
  if (term.length > MAX_KEYWORD_LENGTH) return `each ${noun} must be at most ${MAX_KEYWORD_LENGTH} characters`;
  return null;
}

/** A term as typed → its normalised spelling, or one issue saying what to change. */
export const keywordTermSchema = (noun: string) =>
  z
    .string()
    .transform(normaliseKeyword)
    .superRefine((term, ctx) => {
      const problem = keywordTermProblem(term, noun);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
