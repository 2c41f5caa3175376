import type { Posting } from '../feeds/posting';
import type { Subscriber } from '../subscribers/subscriber';
import { readPostingText, type MatchedText, type PostingText } from './posting-text';
import { checkPay, chosenCurrencyOf } from '../pay/minimum-pay';
import { matchQuery, readQueryText, type QueryPosting, type QueryText } from './query/evaluate-query';
import { describeClause } from '../query/print-query';
import type { QueryNode } from '../query/query-tree';
import { queryOf, type QueryProfile } from '../query/subscriber-query';

/**
 * Why a posting that matched what the subscriber looks for was still left out: something they
 * exclude in it (an exclude, any `-clause` of their query), or pay under their minimum of the same
 * kind and currency (lib/pay/minimum-pay.ts, or a pay clause of the query). A daily digest counts
 * these in its near-miss line; the code keeps its first name, which nearMisses/ documents store.
 */
export type NearMiss = 'excluded' | 'under_min_budget';

export type Verdict =
  { matched: true; score: number; reasons: string[] } | { matched: false; reason: string; nearMiss?: NearMiss; reasons?: string[] };

/** What matching reads of a subscriber: a stored one, or a profile not saved yet (the signup preview). */
export type MatchProfile = Pick<Subscriber, 'keywords' | 'excludes' | 'minPay'> & QueryProfile;

const WEIGHT = { title: 40, skills: 25, description: 15 } as const;
/** A clause that names no place in the text: a field's term, remote:, pay met. */
const CLAUSE_WEIGHT = 15;

export type { MatchedText };

/**
 * The first of `excludes` that removes this posting (it appears in the title, the skills or the
 * description), or null. The one exclude rule: matching applies it, and the preferences page's
 * exclude suggestion measures its effect with it (lib/feedback/suggest-exclude.ts).
 */
export function excludedBy(excludes: readonly string[], posting: MatchedText, text: PostingText = readPostingText(posting)): string | null {
  return excludes.find((exclude) => text.fieldNaming(exclude) !== null) ?? null;
}

/**
 * A clause that held, as a reason a person reads and what it weighs: a keyword where it was found
 * (`“react” in the title`, as every email has said), any other clause by its name in the query
 * (`matched title:react`, `matched remote:yes`, `matched rate>=60`).
 */
function reasonOf(clause: QueryNode, text: QueryText): { reason: string; weight: number } {
  if (clause.kind === 'term' && clause.field === null) {
    const where = text.fieldNaming(clause.text) ?? 'description';
    return { reason: `“${clause.text}” in the ${where}`, weight: WEIGHT[where] };
  }
  const weight = clause.kind === 'term' && clause.field === 'title' ? WEIGHT.title : CLAUSE_WEIGHT;
  return { reason: `matched ${describeClause(clause)}`, weight };
}

/** How an exclusion that removed a posting is named: the keyword's old words for a plain term. */
const excludedReason = (part: Extract<QueryNode, { kind: 'not' }>) =>
  part.part.kind === 'term' && part.part.field === null ? `excluded by “${part.part.text}”` : `excluded by -${describeClause(part.part)}`;

/**
 * Decides whether a posting fits a subscriber and how well (0–100), keeping the reasons a person
 * would want to read in the email. Pure: the same inputs give the same verdict on every run.
 *
 * The subscriber's query decides (lib/matching/query): its top-level parts are read as what they
 * look for (every part that is neither a NOT nor pay), then what they leave out (the NOTs), then
 * the pay it asks for, then their pay minimums; a posting that has what they look for but is left
 * out by a NOT or by pay says so (`nearMiss`), with the clauses it matched. A keyword subscription
 * (any keyword, none of the excludes) is decided exactly as keywords always were.
 */
export function scorePosting(
  subscriber: MatchProfile,
  posting: QueryPosting & Pick<Posting, 'budget'>,
  /** The posting's text as one matching pass reads it for every subscriber (matchPostings); read anew when absent. */
  text: QueryText = readQueryText(posting),
  /** The subscriber's query, parsed once per pass; read from the profile when absent. */
  tree: QueryNode | null = queryOf(subscriber),
): Verdict {
  if (!tree) return { matched: false, reason: 'no keyword' };
  const options = { currency: chosenCurrencyOf(subscriber.minPay) };
  const parts = tree.kind === 'and' ? tree.parts : [tree];
  const exclusions = parts.filter((part) => part.kind === 'not');
  const pays: QueryNode[] = parts.filter((part) => part.kind === 'pay');
  let wanted: QueryNode[] = parts.filter((part) => part.kind !== 'not' && part.kind !== 'pay');
  // A query of pay and exclusions only (`salary>=100k -php`): the pay is what it looks for.
  if (wanted.length === 0) wanted = pays.splice(0);

  const matched: QueryNode[] = [];
  for (const part of wanted) {
    const found = matchQuery(part, posting, text, options);
    if (!found.matches) return { matched: false, reason: 'no keyword' };
    matched.push(...found.matched);
  }
  let score = 0;
  const reasons: string[] = [];
  for (const clause of matched) {
    const { reason, weight } = reasonOf(clause, text);
    score += weight;
    reasons.push(reason);
  }

  const excluded = exclusions.find((part) => !matchQuery(part, posting, text, options).matches);
  if (excluded) return { matched: false, reason: excludedReason(excluded), nearMiss: 'excluded', reasons };
  for (const part of pays) {
    const found = matchQuery(part, posting, text, options);
    if (!found.matches) return { matched: false, reason: `pay under ${describeClause(part)}`, nearMiss: 'under_min_budget', reasons };
    for (const clause of found.matched) {
      score += CLAUSE_WEIGHT;
      reasons.push(reasonOf(clause, text).reason);
    }
  }

  const pay = checkPay(subscriber.minPay, posting.budget);
  if (pay.outcome === 'below') return { matched: false, reason: pay.reason, nearMiss: 'under_min_budget', reasons };
  if (pay.outcome === 'meets') {
    score += 15;
    reasons.push(pay.reason);
  } else if (posting.budget) {
    score += 5;
    // Pay in another currency (or none stated) is kept unconverted; the reader is told it was not compared.
    if (pay.outcome === 'not_compared') reasons.push(pay.reason);
  }
  return { matched: true, score: Math.min(100, score), reasons };
}
