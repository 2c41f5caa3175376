import type { EmailEstimate } from './preview';

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * The estimate in words, as the panel shows it: "About 3 emails a week: one digest on each of your
 * days with matches." / "No email; 12 postings in your feed."
 */
export function describeEstimate(estimate: EmailEstimate, windowDays: number): string {
  if (estimate.mode === 'feed')
    return estimate.feedItems === 0
      ? `No email; nothing of the last ${windowDays} days would be in your feed.`
      : `No email; ${plural(estimate.feedItems, 'posting', 'postings')} in your feed.`;
  if (estimate.emailsPerWeek === 0) return `No emails: nothing matched in the last ${windowDays} days.`;
  const about = `About ${plural(estimate.emailsPerWeek, 'email', 'emails')} a week`;
  switch (estimate.mode) {
    case 'instant':
      return `${about}: one for each check that found new matches.`;
    case 'daily':
      return `${about}: one digest on each of your days with matches.`;
    case 'weekly':
      return `${about}: your weekly digest.`;
  }
}
