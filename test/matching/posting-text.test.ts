import { describe, expect, it } from 'vitest';
import { readPostingText, type PatternCache, type TextField } from '../../lib/matching/posting-text';
import { keywordPattern } from '../../lib/matching/text';
import { readCorpusPostings } from '../../scripts/bench/corpus-postings';

const TERMS = [
  'python',
  'sql',
  'c++',
  'c#',
  '.net',
  'node.js',
  'go',
  'r',
  'react native',
  'machine learning',
  'remote',
  'aws',
  'ui/ux',
  "o'reilly",
  'kubernetes',
];

/** Where a term is named, the slow way: each field tested with the pattern, as matching did per subscriber. */
function namedIn(posting: { title: string; skills: string[]; description: string }, term: string): TextField | null {
  const fields = { title: posting.title, skills: posting.skills.join(' · '), description: posting.description };
  const pattern = keywordPattern(term);
  return (Object.keys(fields) as TextField[]).find((field) => pattern.test(fields[field])) ?? null;
}

describe("a posting's text, read once for all its candidates", () => {
  it('names every term where testing each field does, over every real corpus posting', async () => {
    const postings = (await readCorpusPostings()).flatMap((file) => file.postings);
    expect(postings.length).toBeGreaterThan(500);
    const patterns: PatternCache = new Map();
    for (const posting of postings) {
      const text = readPostingText(posting, patterns);
      for (const term of TERMS) expect(text.fieldNaming(term), `${posting.id} ${term}`).toBe(namedIn(posting, term));
    }
    // Each term compiled once for the whole pass, and only those some posting's words could hold.
    expect(patterns.size).toBeLessThanOrEqual(TERMS.length);
  });

  it('answers a term from its first look-up after that', () => {
    const patterns: PatternCache = new Map();
    const text = readPostingText({ title: 'Rust developer', skills: ['wasm'], description: 'We write Rust and some Go.' }, patterns);
    expect(text.fieldNaming('rust')).toBe('title');
    expect(text.fieldNaming('wasm')).toBe('skills');
    expect(text.fieldNaming('go')).toBe('description');
    expect(text.fieldNaming('haskell')).toBeNull();
    // A term none of whose words is in the posting is never compiled.
    expect([...patterns.keys()].sort()).toEqual(['go', 'rust', 'wasm']);
  });
});
