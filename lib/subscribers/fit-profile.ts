import { z } from 'zod';

/**
 * "About you": up to 500 characters in which a subscriber says what they want, the model's main
 * input besides the keywords (the AI verdict stage). Free text, so unlike a keyword it may hold
 * any printable character and line breaks; like a keyword, control and invisible characters are
 * refused at the way in, named by code point (never echoed raw), since they could only hide text
 * from the person reading it back on the preferences page or the ops page. Shown by React, which
 * escapes it; never as HTML.
 */

export const MAX_ABOUT_LENGTH = 500;

/** The field's help, the same on every form that shows it (only while the AI stage is on: nothing else reads it). */
export const ABOUT_HINT = `In a few sentences, what you are looking for and what you are not; up to ${MAX_ABOUT_LENGTH} characters. Scout's model reads it with each posting that matches your keywords.`;

// Zero-width joiner and non-joiner shape Persian, Indic scripts and emoji: the only format characters kept.
const JOINERS = /^[\u200c\u200d]$/u;
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\u2028\u2029]$/u;

/**
 * The one spelling stored: line breaks as "\n" (CRLF from a form post included), tabs and other
 * spaces on a line as one space, no trailing spaces on a line, at most one blank line in a row,
 * trimmed, composed (NFC).
 */
export function normaliseAbout(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/gu, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The number of characters as a person counts them (code points, so an emoji is one). */
export const aboutLength = (text: string) => [...text].length;

/** Why a normalised text is refused; null when it is fine. */
export function aboutProblem(text: string): string | null {
  for (const character of text) {
    if (character === '\n' || JOINERS.test(character) || !INVISIBLE.test(character)) continue;
    const codePoint = `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    const kind = /^\p{Cc}$/u.test(character) ? 'a control character' : 'an invisible character';
    return `may not contain ${codePoint}, ${kind}`;
  }
  if (aboutLength(text) > MAX_ABOUT_LENGTH) return `must be at most ${MAX_ABOUT_LENGTH} characters (it has ${aboutLength(text)})`;
  return null;
}

/** The field as a form or JSON sends it: text, or absent/null for none. Leaves normalised ('' for none). */
export const aboutSchema = z.preprocess(
  (value) => value ?? '',
  z
    .string({ error: 'must be text' })
    .transform(normaliseAbout)
    .superRefine((text, ctx) => {
      const problem = aboutProblem(text);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
);

/** The fit threshold: postings the model rates below it are not sent. An integer 0–100. */
export const DEFAULT_FIT_THRESHOLD = 60;

export const fitThresholdSchema = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    const cleaned = value.trim().replace(/%$/, '').trim();
    if (cleaned === '') return value;
    const n = Number(cleaned);
    return Number.isFinite(n) ? n : value;
  },
  z
    .number({ error: 'must be a whole number from 0 to 100' })
    .int('must be a whole number from 0 to 100')
    .min(0, 'must be a whole number from 0 to 100')
    .max(100, 'must be a whole number from 0 to 100'),
);

/** A stored threshold as read back: anything but an integer 0–100 (an old document) is the default. */
export const readFitThreshold = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 100 ? value : DEFAULT_FIT_THRESHOLD;
