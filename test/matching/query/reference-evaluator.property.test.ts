import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Posting } from '../../../lib/feeds/posting';
import { matchQuery, readQueryText } from '../../../lib/matching/query/evaluate-query';
import type { QueryNode } from '../../../lib/query/query-tree';
import type { PatternCache } from '../../../lib/matching/posting-text';
import { postingArbitrary, treeArbitrary } from '../../query/query-arbitraries';

/** A letter, mark or digit: what a term must not be glued to. */
const isWordCharacter = (character: string | undefined) => character !== undefined && /[\p{L}\p{M}\p{N}]/u.test(character);

/** Whether `text` holds `term` as whole words, the slow, plain way: every place it occurs, its neighbours checked. */
function holdsWords(text: string | null | undefined, term: string): boolean {
  if (text === null || text === undefined) return false;
  const haystack = [...text.toLowerCase().replace(/\s+/g, ' ')];
  const needle = [...term];
  for (let start = 0; start + needle.length <= haystack.length; start++) {
    if (!needle.every((character, i) => haystack[start + i] === character)) continue;
    if (!isWordCharacter(haystack[start - 1]) && !isWordCharacter(haystack[start + needle.length])) return true;
  }
  return false;
}

function remoteness(p: Posting): boolean | null {
  if (p.remote === true || holdsWords(p.location, 'remote')) return true;
  return p.remote === false ? false : null;
}

/** 'below' | 'meets' | 'passes' (no pay of that kind, or not in that currency). */
function payAgainst(node: Extract<QueryNode, { kind: 'pay' }>, p: Posting, currency: string) {
  const b = p.budget;
  if (!b || b.kind !== node.pay || b.currency !== (node.currency ?? currency)) return 'passes';
  return (b.maxAmount ?? b.amount) < node.amount ? 'below' : 'meets';
}

function referenceHolds(node: QueryNode, p: Posting, currency: string): boolean {
  switch (node.kind) {
    case 'term':
      if (node.field === null) return [p.title, p.skills.join(' · '), p.description].some((field) => holdsWords(field, node.text));
      return holdsWords({ title: p.title, company: p.company, location: p.location, source: p.source }[node.field], node.text);
    case 'remote':
      return remoteness(p) === node.remote;
    case 'pay':
      return payAgainst(node, p, currency) !== 'below';
    case 'and':
      return node.parts.every((part) => referenceHolds(part, p, currency));
    case 'or':
      return node.parts.some((part) => referenceHolds(part, p, currency));
    case 'not':
      return !referenceHolds(node.part, p, currency);
  }
}

function referenceReasons(node: QueryNode, p: Posting, currency: string): QueryNode[] {
  if (node.kind === 'not') return [];
  if (node.kind === 'pay') return payAgainst(node, p, currency) === 'meets' ? [node] : [];
  if (node.kind === 'term' || node.kind === 'remote') return [node];
  return node.parts.filter((part) => referenceHolds(part, p, currency)).flatMap((part) => referenceReasons(part, p, currency));
}

describe('matchQuery decides as a plain reading of the query would', () => {
  it('for generated queries and postings: the verdict and the clauses named as reasons', () => {
    const patterns: PatternCache = new Map();
    let matched = 0;
    fc.assert(
      fc.property(
        treeArbitrary,
        fc.array(postingArbitrary, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('USD', 'EUR'),
        (tree, postings, currency) => {
          for (const p of postings) {
            const expected = referenceHolds(tree, p, currency);
            const got = matchQuery(tree, p, readQueryText(p, patterns), { currency });
            expect(got.matches).toBe(expected);
            expect(got.matched).toEqual(expected ? referenceReasons(tree, p, currency) : []);
            if (expected) matched++;
          }
        },
      ),
      { numRuns: 300, seed: 6122026 },
    );
    // Both verdicts are common, so the agreement says something.
    expect(matched).toBeGreaterThan(100);
  });
});
