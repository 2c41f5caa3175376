import type { Posting } from '../feeds/posting';
import type { Subscriber } from '../subscribers/subscriber';
import { readPostingText, type MatchedText, type PostingText } from './posting-text';
import { checkPay, chosenCurrencyOf } from '../pay/minimum-pay';
import { matchQuery, readQueryText, type QueryPosting, type QueryText } from './query/evaluate-query';
import { describeClause } from '../query/print-query';
import type { QueryNode } from '../query/query-tree';
import { isKeywordQuery, queryOf, type QueryProfile } from '../query/subscriber-query';

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
 * How a query is decided, worked out once per tree (a pass decides each subscriber's tree against
 * many postings):
 * - `lists`: any of these whole-text terms and none of those, the simple form's shape (every
 *   keyword subscription, and a written query that says no more): decided term by term, the way
 *   keywords always were, with no tree to walk;
 * - `clauses`: anything else: the top-level parts that say what they look for, the NOTs that leave
 *   postings out, and the query's pay clauses, each decided by matchQuery.
 */
export type QueryPlan =
  | { kind: 'lists'; any: string[]; none: string[] }
  | { kind: 'clauses'; wanted: QueryNode[]; exclusions: Extract<QueryNode, { kind: 'not' }>[]; pays: QueryNode[] };

const plans = new WeakMap<QueryNode, QueryPlan>();

const wholeTextTerm = (node: QueryNode): string | null => (node.kind === 'term' && node.field === null ? node.text : null);

function listsOf(tree: QueryNode): QueryPlan | null {
  const [first, ...rest] = tree.kind === 'and' ? tree.parts : [tree];
  const alternatives = first.kind === 'or' ? first.parts : [first];
  const any = alternatives.map(wholeTextTerm);
  const none = rest.map((part) => (part.kind === 'not' ? wholeTextTerm(part.part) : null));
  if (any.includes(null) || none.includes(null)) return null;
  return { kind: 'lists', any: any as string[], none: none as string[] };
}

function clausesOf(tree: QueryNode): QueryPlan {
  const parts = tree.kind === 'and' ? tree.parts : [tree];
  const exclusions = parts.filter((part) => part.kind === 'not');
  const pays = parts.filter((part) => part.kind === 'pay');
  const wanted = parts.filter((part) => part.kind !== 'not' && part.kind !== 'pay');
  // A query of pay and exclusions only (`salary>=100k -php`): the pay is what it looks for.
  return wanted.length > 0 ? { kind: 'clauses', wanted, exclusions, pays } : { kind: 'clauses', wanted: pays, exclusions, pays: [] };
}

/**
 * A subscriber's plan: their keyword lists as they are stored, with no tree to build, when the
 * lists are their query (every keyword subscription: decided by the very terms keywords were
 * always decided by); else their query's tree planned. Null when there is nothing to look for.
 */
export function planOfProfile(profile: MatchProfile): { plan: QueryPlan; tree: QueryNode | null } | null {
  if (isKeywordQuery(profile)) {
    return profile.keywords.length > 0 ? { plan: { kind: 'lists', any: profile.keywords, none: profile.excludes }, tree: null } : null;
  }
  const tree = queryOf(profile);
  return tree ? { plan: planOf(tree), tree } : null;
}

/** A tree's plan, worked out once (kept with the tree, which a pass keeps for its subscriber). */
export function planOf(tree: QueryNode): QueryPlan {
  const known = plans.get(tree);
  if (known) return known;
  const plan = listsOf(tree) ?? clausesOf(tree);
  plans.set(tree, plan);
  return plan;
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
  /** A query to decide with in place of the subscriber's own (a tree already parsed). */
  tree?: QueryNode,
): Verdict {
  const plan = tree ? planOf(tree) : planOfProfile(subscriber)?.plan;
  return plan ? decidePlanned(plan, subscriber, posting, text) : { matched: false, reason: 'no keyword' };
}

/** scorePosting for a query already planned: what a matching pass calls for each candidate. */
export function decidePlanned(plan: QueryPlan, subscriber: MatchProfile, posting: QueryPosting, text: QueryText): Verdict {
  return plan.kind === 'lists' ? decideLists(plan, subscriber, posting, text) : decideClauses(plan, subscriber, posting, text);
}

/** Any of the terms, none of the others: each term looked up once, as keywords always were. */
function decideLists(
  plan: Extract<QueryPlan, { kind: 'lists' }>,
  subscriber: MatchProfile,
  posting: QueryPosting,
  text: QueryText,
): Verdict {
  let score = 0;
  const reasons: string[] = [];
  for (const keyword of plan.any) {
    const where = text.fieldNaming(keyword);
    if (!where) continue;
    score += WEIGHT[where];
    reasons.push(`“${keyword}” in the ${where}`);
  }
  if (reasons.length === 0) return { matched: false, reason: 'no keyword' };
  const exclude = plan.none.find((term) => text.fieldNaming(term) !== null);
  if (exclude !== undefined) return { matched: false, reason: `excluded by “${exclude}”`, nearMiss: 'excluded', reasons };
  return withMinimumPay(subscriber, posting, score, reasons);
}

function decideClauses(
  plan: Extract<QueryPlan, { kind: 'clauses' }>,
  subscriber: MatchProfile,
  posting: QueryPosting,
  text: QueryText,
): Verdict {
  const options = { currency: chosenCurrencyOf(subscriber.minPay) };
  const matched: QueryNode[] = [];
  for (const part of plan.wanted) {
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
  const excluded = plan.exclusions.find((part) => !matchQuery(part, posting, text, options).matches);
  if (excluded) return { matched: false, reason: excludedReason(excluded), nearMiss: 'excluded', reasons };
  for (const part of plan.pays) {
    const found = matchQuery(part, posting, text, options);
    if (!found.matches) return { matched: false, reason: `pay under ${describeClause(part)}`, nearMiss: 'under_min_budget', reasons };
    for (const clause of found.matched) {
      score += CLAUSE_WEIGHT;
      reasons.push(reasonOf(clause, text).reason);
    }
  }
  return withMinimumPay(subscriber, posting, score, reasons);
}

/** The subscriber's pay minimums, last: below one is a near miss; meeting one is a reason. */
function withMinimumPay(subscriber: MatchProfile, posting: QueryPosting, score: number, reasons: string[]): Verdict {
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
