/** One posting as an email shows it. Every string here came from an untrusted feed: React escapes it. */
export type EmailItem = {
  title: string;
  url: string | null;
  /** "Acme · Berlin, Germany · remote": who hires and where, from the boards that say; null when none does. */
  employer?: string | null;
  budget: string | null;
  published: string | null;
  excerpt: string;
  reasons: string[];
  score: number;
  /** The AI verdict, when the model judged it: fit 0–100 and its reason (plain text, capped; React escapes it). */
  fit?: number | null;
  fitReason?: string | null;
  /** Every source the job was listed on, by its name on a card, each linking to its listing there (a provider's attribution too). */
  seenOn?: { label: string; url: string | null }[];
  /** "reposted; first seen 9 days ago", "budget raised $300 → $600": what changed since the job was first seen, or null. */
  history?: string | null;
  /** The signed "Not a fit" link for this posting (absent in previews). */
  notAFitUrl?: string | null;
};

/** Reasons a card lists before "and N more": the first say why; twenty-six quoted keywords would bury the posting. */
export const CARD_REASONS = 3;

/** "“react” in the title; “node” in the description; “css” in the skills and 23 more": the card's and the plain text's "Why" line. */
export function reasonsLine(reasons: readonly string[]): string {
  const shown = reasons.slice(0, CARD_REASONS).join('; ');
  const more = reasons.length - CARD_REASONS;
  return more > 0 ? `${shown} and ${more} more` : shown;
}
