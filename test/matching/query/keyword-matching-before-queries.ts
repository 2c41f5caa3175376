import type { Posting } from '../../../lib/feeds/posting';
import { readPostingText, type PostingText } from '../../../lib/matching/posting-text';
import type { Verdict } from '../../../lib/matching/score-posting';
import { checkPay, type MinPay } from '../../../lib/pay/minimum-pay';

/**
 * Keyword matching as it was before subscribers had queries, kept verbatim as the oracle that a
 * keyword subscription, read as its query, receives exactly what it received: the same postings,
 * scores, reasons and near misses. Not shared with lib/: that is the point.
 */
const WEIGHT = { title: 40, skills: 25, description: 15 } as const;

export function scoreByKeywords(
  subscriber: { keywords: string[]; excludes: string[]; minPay: MinPay },
  posting: Posting,
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

  const exclude = subscriber.excludes.find((term) => text.fieldNaming(term) !== null) ?? null;
  if (exclude !== null) return { matched: false, reason: `excluded by “${exclude}”`, nearMiss: 'excluded', reasons };

  const pay = checkPay(subscriber.minPay, posting.budget);
  if (pay.outcome === 'below') return { matched: false, reason: pay.reason, nearMiss: 'under_min_budget', reasons };
  if (pay.outcome === 'meets') {
    score += 15;
    reasons.push(pay.reason);
  } else if (posting.budget) {
    score += 5;
    if (pay.outcome === 'not_compared') reasons.push(pay.reason);
  }
  return { matched: true, score: Math.min(100, score), reasons };
}
