import { cardTitle } from '../feeds/clean-posting-text';
import type { StoredPosting } from '../feeds/postings-collection';
import { employerLine, formatBudget } from '../mail/compose-email';
import { postingExcerpt } from '../mail/posting-excerpt';
import { matchPostings } from '../matching/match-postings';
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
    top: best.slice(0, PREVIEW_TOP).map((m) => previewPosting(m.posting, m.score, m.reasons, profile.keywords)),
    estimate: estimateEmails({
      mode: profile.mode,
      schedule: digestScheduleOf(profile, input.defaultDigestHour),
      matches: matches.map((m) => ({ seenAt: m.posting.fetchedAt, runId: m.posting.runId })),
    }),
  };
}

function previewPosting(posting: StoredPosting, score: number, reasons: string[], keywords: readonly string[]): PreviewPosting {
  const title = cardTitle(posting);
  return {
    id: posting.id,
    title,
    url: posting.url,
    source: posting.sightings?.[0]?.label ?? posting.source,
    employer: employerLine(posting),
    budget: formatBudget(posting.budget),
    excerpt: postingExcerpt({ title, description: posting.description }, keywords),
    score,
    reasons,
    seenAt: posting.fetchedAt.toISOString(),
  };
}
