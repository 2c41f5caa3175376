import type { StoredPosting } from '../feeds/postings-collection';
import { toEmailItem } from '../mail/compose-email';
import { PostingCard } from '../mail/templates/posting-card';
import { scorePosting } from '../matching/score-posting';
import { tokenize } from '../matching/text';
import { NO_MIN_PAY } from '../pay/minimum-pay';

/** A title word short of this is no keyword anyone would follow ("a", "the", "and"). */
const MIN_TITLE_KEYWORD = 4;

/**
 * The posting the landing page shows as its sample card: of the week's postings (newest first), the
 * newest with the most a card can show, a link, pay, who hires or where, and some text. Null
 * when Scout has stored none yet.
 */
export function pickSamplePosting(postings: readonly StoredPosting[]): StoredPosting | null {
  let best: StoredPosting | null = null;
  let bestShows = -1;
  for (const posting of postings) {
    const shows =
      Number(Boolean(posting.url)) +
      Number(Boolean(posting.budget)) +
      Number(Boolean(posting.company || posting.location)) +
      Number(posting.description.length >= 120);
    if (shows > bestShows) [best, bestShows] = [posting, shows];
  }
  return best;
}

/**
 * A keyword the sample matches, so that its card says why, as every card in an email does: the
 * first of its skills its title or text names (a skill is always "in the skills", which says
 * little), else its first skill, else the longest word of its title.
 */
export function sampleKeyword(posting: StoredPosting): string | null {
  const matches = (keyword: string, text: StoredPosting) =>
    scorePosting({ keywords: [keyword], excludes: [], minPay: NO_MIN_PAY }, text).matched;
  const withoutSkills = { ...posting, skills: [] };
  const named = posting.skills.find((skill) => matches(skill, withoutSkills));
  if (named) return named;
  if (posting.skills.length > 0) return posting.skills[0];
  const words = tokenize(posting.title).filter((word) => word.length >= MIN_TITLE_KEYWORD && !/^\d+$/.test(word));
  return words.sort((a, b) => b.length - a.length).find((word) => matches(word, posting)) ?? null;
}

/**
 * One real posting as Scout emails it, by the emails' own card (PostingCard), on the white of an
 * email whatever the page's colour scheme: the card's colours are the email's. No "not a fit" link:
 * nobody has subscribed yet.
 */
export function SampleCard({ posting, now }: { posting: StoredPosting; now: Date }) {
  const keyword = sampleKeyword(posting);
  const verdict = keyword ? scorePosting({ keywords: [keyword], excludes: [], minPay: NO_MIN_PAY }, posting) : null;
  const item = toEmailItem(
    { posting, score: verdict?.matched ? verdict.score : 0, reasons: verdict?.matched ? verdict.reasons : [] },
    null,
    now,
    keyword ? [keyword] : [],
  );
  return (
    <figure className="sample-card">
      <div className="sample-email">
        <PostingCard item={item} />
      </div>
      <figcaption>
        The newest posting from these sources, as a card in an email{keyword ? ` to someone following “${keyword}”` : ''}.
      </figcaption>
    </figure>
  );
}
