import type { Posting } from '../feeds/posting';
import type { Subscriber } from '../subscribers/subscriber';
import { readPostingText, type MatchedText, type PostingText } from './posting-text';
import { checkPay } from '../pay/minimum-pay';

/**
 * Why a posting that matched the subscriber's keywords was still left out: an exclude term in it,
 * or pay under their minimum of the same kind and currency (lib/pay/minimum-pay.ts). A daily digest
 * counts these in its near-miss line; the code keeps its first name, which nearMisses/ documents store.
 */
export type NearMiss = 'excluded' | 'under_min_budget';

export type Verdict =
  { matched: true; score: number; reasons: string[] } | { matched: false; reason: string; nearMiss?: NearMiss; reasons?: string[] };

const WEIGHT = { title: 40, skills: 25, description: 15 } as const;

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
 * Decides whether a posting fits a subscriber and how well (0–100), keeping the reasons a person
 * would want to read in the email. Pure: the same inputs give the same verdict on every run.
 * A posting that has a keyword but is left out by an exclude or a pay minimum says so
 * (`nearMiss`), with the keywords it matched.
 */
export function scorePosting(
  subscriber: Pick<Subscriber, 'keywords' | 'excludes' | 'minPay'>,
  posting: Posting,
  /** The posting's text as one matching pass reads it for every subscriber (matchPostings); read anew when absent. */
  text: PostingText = readPostingText(posting),
): Verdict {
  let score = 0;
  const reasons: string[] = [];
  for (const keyword of subscriber.keywords) {
    const where = text.fieldNaming(keyword);
    if (!where) continue;
    score += WEIGHT[where];
    reasons.push(`“${keyword}” in the ${where === 'skills' ? 'skills' : where}`);
  }
  if (reasons.length === 0) return { matched: false, reason: 'no keyword' };

  const exclude = excludedBy(subscriber.excludes, posting, text);
  if (exclude !== null) return { matched: false, reason: `excluded by “${exclude}”`, nearMiss: 'excluded', reasons };

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
