import { cardTitle } from '../feeds/clean-posting-text';
import type { StoredPosting } from '../feeds/postings-collection';
import { employerLine, formatBudget } from '../mail/compose-email';
import { postingExcerpt } from '../mail/posting-excerpt';
import { matchPostings } from '../matching/match-postings';
import { matchQuery } from '../matching/query/evaluate-query';
import { chosenCurrencyOf } from '../pay/minimum-pay';
import { queryOf } from '../query/subscriber-query';
import type { QueryNode } from '../query/query-tree';
import { digestScheduleOf } from '../subscribers/subscriber';
import { estimateEmails } from './estimate-emails';
import type { PreviewInput } from './preview-input';
import { PREVIEW_TOP, PREVIEW_WINDOW_DAYS, type Preview, type PreviewPosting } from './preview';
import type { RecentPostings } from './read-recent-postings';

/**
 * The preview of one profile over the window's postings: the run's own matching (matchPostings,
 * the keyword lookup and scorePosting; not a copy of them), the best PREVIEW_TOP matches, and the
 * emails the chosen cadence would have sent. Pure. The optional AI verdict stage is not asked:
 * it would cost a model call per preview, so the preview is what keywords, excludes and budget
 * let through, which the model can only narrow.
 */
export function computePreview(input: { recent: RecentPostings; profile: PreviewInput; defaultDigestHour: number }): Preview {
  const { recent, profile } = input;
  const matches = matchPostings(recent.postings, [profile]);
  const best = [...matches].sort((a, b) => b.score - a.score || b.posting.fetchedAt.getTime() - a.posting.fetchedAt.getTime());
  return {
    windowDays: PREVIEW_WINDOW_DAYS,
    checked: recent.postings.length,
    truncated: recent.truncated,
    matched: matches.length,
    top: best.slice(0, PREVIEW_TOP).map((m) => previewPosting(m.posting, m.score, m.reasons, matchedWords(profile, m.posting))),
    estimate: estimateEmails({
      mode: profile.mode,
      schedule: digestScheduleOf(profile, input.defaultDigestHour),
      matches: matches.map((m) => ({ seenAt: m.posting.fetchedAt, runId: m.posting.runId })),
    }),
  };
}

/**
 * The words the query matched in a posting, for the panel to mark: the terms among the clauses that
 * made it match (not those under a NOT, nor an OR's alternative that did not hold). A whole-text
 * term is marked in the title and the excerpt, a `title:` one in the title; `company:` and the like
 * name what the meta line shows, and remote and pay are no words.
 */
function matchedWords(profile: PreviewInput, posting: StoredPosting): PreviewPosting['marks'] {
  const tree = queryOf(profile);
  const matched = tree ? matchQuery(tree, posting, undefined, { currency: chosenCurrencyOf(profile.minPay) }).matched : [];
  const termsIn = (fields: (string | null)[]) => [
    ...new Set(matched.flatMap((node: QueryNode) => (node.kind === 'term' && fields.includes(node.field) ? [node.text] : []))),
  ];
  return { title: termsIn([null, 'title']), text: termsIn([null]) };
}

function previewPosting(posting: StoredPosting, score: number, reasons: string[], marks: PreviewPosting['marks']): PreviewPosting {
  const title = cardTitle(posting);
  return {
    id: posting.id,
    title,
    url: posting.url,
    source: posting.sightings?.[0]?.label ?? posting.source,
    employer: employerLine(posting),
    budget: formatBudget(posting.budget),
    // The excerpt centres on the words that matched, as an email's card centres on the keywords.
    excerpt: postingExcerpt({ title, description: posting.description }, marks.text),
    score,
    reasons,
    marks,
    seenAt: posting.fetchedAt.toISOString(),
  };
}
