import type { Posting } from '../feeds/posting';
import { cardTitle } from '../feeds/clean-posting-text';
import { describeMinPay, type MinPay } from '../pay/minimum-pay';
import type { StoredPosting } from '../feeds/postings-collection';
import { DAY_MS } from '../store/timestamps';
import { formatBudget, formatPayAmount } from '../pay/format-pay';
import { archiveUrl, feedUrl, notAFitUrl, preferencesUrl, unsubscribeUrl } from '../subscribers/link-token';
import { isWeekPeriod, periodStart } from '../subscribers/digest-schedule';
import type { Subscriber } from '../subscribers/subscriber';
import type { EmailPayload } from './email-payload';
import type { SourceCoverage } from '../feeds/source-coverage';
import { sourcesCheckedLine } from './sources-checked';
import { postingExcerpt } from './posting-excerpt';
import { alertSubject, digestSubject, subjectPay, welcomeSubject, type SubjectMatch } from './email-subject';
import { renderDailyDigest, renderInstantAlert } from './prerendered-emails';
import { reasonsLine, type EmailItem } from './templates/email-item';
import { render } from '@react-email/render';
import { WelcomeEmail } from './templates/welcome-email';

export type MailSettings = { appUrl: string; from: string; linkSecret: string };
import { rankOf } from '../matching/rank';

/** One posting an email carries: its keyword score and reasons, and the AI verdict when the stage judged it. */
export type ScoredPosting = {
  /** As stored when read from jobs/: a canonical posting's sightings, repost and budget history show on its card. */
  posting: CardPosting;
  score: number;
  reasons: string[];
  fit?: number | null;
  fitReason?: string | null;
  /** Why the model did not decide it (the stage is on): keywords did, and the email says so in one line. */
  aiFallback?: string | null;
};

/** What a card shows of a posting: the posting, and what one card per real job adds when it was read from jobs/. */
export type CardPosting = Posting & Partial<Pick<StoredPosting, 'sightings' | 'firstSeenAt' | 'repostedAt' | 'previousBudget'>>;

const minuteFormat = (timeZone: string, zoneName: boolean) =>
  new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    ...(zoneName ? { timeZoneName: 'short' as const } : {}),
  });
const publishedFormat = minuteFormat('UTC', false);
// Building a formatter costs far more than using one; subscribers share a few hundred zones at most.
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** How a card (and the signup preview) shows pay: see lib/pay/format-pay.ts. */
export { formatBudget };

/** "2 Dec 2026, 13:53 UTC": how the archive writes an instant, and an email to a subscriber with no zone. */
export const formatUtcMinute = (date: Date) => `${publishedFormat.format(date)} UTC`;

/**
 * "2 Dec 2026, 14:53 CET": an instant in the subscriber's zone, named as their clock names it
 * ("GMT-5" where English has no short name for it). UTC when they chose none, or a zone this runtime
 * does not know (the schema checks zones, so only a document older than it could hold one).
 */
export function formatLocalMinute(date: Date, timeZone: string | null | undefined): string {
  if (!timeZone || timeZone === 'UTC') return formatUtcMinute(date);
  let format = zoneFormats.get(timeZone);
  if (!format) {
    try {
      format = minuteFormat(timeZone, true);
    } catch {
      return formatUtcMinute(date);
    }
    if (zoneFormats.size >= 1_000) zoneFormats.clear();
    zoneFormats.set(timeZone, format);
  }
  return format.format(date);
}

/**
 * "budget raised $300 → $600" / "budget lowered …" when a copy of the job changed what it pays
 * in the same currency and kind (compared by the top of the range: what a pay minimum is
 * compared with); "budget changed $300 fixed → $40.00/hour" otherwise. Null when it never changed.
 */
export function budgetChangeLine(posting: CardPosting): string | null {
  const before = posting.previousBudget;
  const after = posting.budget;
  if (!before || !after) return null;
  if (before.currency === after.currency && before.kind === after.kind) {
    const top = (b: typeof before) => b.maxAmount ?? b.amount;
    const verb = top(after) > top(before) ? 'raised' : top(after) < top(before) ? 'lowered' : 'changed';
    return `budget ${verb} ${formatPayAmount(before)} → ${formatPayAmount(after)}`;
  }
  return `budget changed ${formatBudget(before)} → ${formatBudget(after)}`;
}

/** "Acme · Berlin · remote": null for a feed item, which names neither, so its card reads as before. */
export function employerLine(posting: Pick<Posting, 'company' | 'location' | 'remote'>): string | null {
  const location = posting.location ?? null;
  // "Remote (EU)" already says it.
  const remote = posting.remote === true && !/remote/i.test(location ?? '') ? 'remote' : null;
  const parts = [posting.company ?? null, location, remote].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** "reposted; first seen 9 days ago": the job came back after it was first seen. Null for a first listing. */
export function repostLine(posting: CardPosting, now: Date): string | null {
  if (!posting.repostedAt || !posting.firstSeenAt) return null;
  const days = Math.max(0, Math.floor((now.getTime() - posting.firstSeenAt.getTime()) / DAY_MS));
  return `reposted; first seen ${days === 0 ? 'today' : days === 1 ? '1 day ago' : `${days} days ago`}`;
}

export function toEmailItem(
  { posting, score, reasons, fit, fitReason }: ScoredPosting,
  notAFit: string | null,
  /** The email's clock: "first seen 9 days ago" is counted to when the email is composed. */
  now: Date,
  /** The subscriber's keywords: a card whose keyword is named only deep in the text shows that passage. */
  keywords: readonly string[] = [],
  /** The subscriber's zone: the card's times are written in it. */
  timeZone?: string | null,
): EmailItem {
  const history = [repostLine(posting, now), budgetChangeLine(posting)].filter(Boolean).join(' · ');
  const title = cardTitle(posting);
  const excerpt = postingExcerpt({ title, description: posting.description }, keywords);
  return {
    title,
    url: posting.url,
    employer: employerLine(posting),
    budget: formatBudget(posting.budget),
    published: posting.publishedAt ? formatLocalMinute(posting.publishedAt, timeZone) : null,
    excerpt,
    reasons,
    score,
    ...(fit != null ? { fit, fitReason: fitReason ?? null } : {}),
    seenOn: (posting.sightings ?? []).map((s) => ({ label: s.label, url: s.url })),
    history: history || null,
    notAFitUrl: notAFit,
  };
}

/** Each item's signed "Not a fit" link (a GET shows a page with one button; only its POST records). */
const notAFitLinks = (settings: MailSettings, subscriber: EmailSubscriber, now: Date) => (item: ScoredPosting) =>
  toEmailItem(
    item,
    notAFitUrl({
      appUrl: settings.appUrl,
      uid: subscriber.id,
      linkVersion: subscriber.linkVersion,
      jobId: item.posting.id,
      secret: settings.linkSecret,
      issuedAt: now,
    }),
    now,
    subscriber.keywords,
    subscriber.timezone,
  );

/**
 * Who an email goes to; with their keywords, each card's excerpt shows the passage that matched,
 * and with their zone, its times are theirs (UTC without one).
 */
type EmailSubscriber = Pick<Subscriber, 'id' | 'email' | 'feedTokenVersion' | 'linkVersion'> & {
  keywords?: readonly string[];
  timezone?: string | null;
};

/**
 * The one line an email carries when the verdict stage is on and keywords alone decided some of
 * its items: the daily budget is spent, or the model did not answer. Null when the model decided
 * every item, and always while the stage is off.
 */
export function keywordsOnlyNote(items: ScoredPosting[]): string | null {
  const fallbacks = items.filter((item) => item.aiFallback);
  if (fallbacks.length === 0) return null;
  const which = fallbacks.length < items.length ? `${fallbacks.length} of these were` : items.length === 1 ? 'this was' : 'these were';
  const why = fallbacks.some((item) => item.aiFallback === 'budget')
    ? "Today's AI review budget is used up"
    : 'Our AI review did not answer';
  return `${why}, so ${which} matched on your keywords alone.`;
}

/** What a digest's keyword matches lost, and why: counted for its near-miss line. */
export type FilteredOut = { underMinBudget: number; excluded: number; notAFit: number; minPay: MinPay };

/**
 * One line saying what the keywords matched that the digest leaves out, e.g. "7 more matched your
 * keywords: 4 under your minimum pay ($100,000/year, $50/hour), 3 judged not a fit." Null when
 * nothing was left out. The count is not kept per kind, so the line names every minimum set.
 */
export function nearMissLine(out: FilteredOut | undefined): string | null {
  if (!out) return null;
  const parts: string[] = [];
  const minimums = describeMinPay(out.minPay);
  const minimum = minimums ? `minimum pay (${minimums})` : 'minimum pay';
  if (out.underMinBudget > 0) parts.push(`${out.underMinBudget} under your ${minimum}`);
  if (out.excluded > 0) parts.push(`${out.excluded} with a word you exclude`);
  if (out.notAFit > 0) parts.push(`${out.notAFit} judged not a fit`);
  const total = out.underMinBudget + out.excluded + out.notAFit;
  return total === 0 ? null : `${total} more matched your keywords: ${parts.join(', ')}.`;
}

const byRank = (a: ScoredPosting, b: ScoredPosting) => rankOf(b) - rankOf(a);

/** The plain-text part, written for people whose client shows no HTML. */
function itemsAsText(items: EmailItem[]): string {
  return items
    .map((item) =>
      [
        `* ${item.title}`,
        [item.employer, item.budget, item.published].filter(Boolean).join(' · '),
        item.url ? `View posting: ${item.url}` : '',
        item.seenOn && item.seenOn.length > 0
          ? `Seen on ${item.seenOn.map((seen) => (seen.url ? `${seen.label} <${seen.url}>` : seen.label)).join(', ')}`
          : '',
        item.history ?? '',
        item.excerpt,
        `Why: ${reasonsLine(item.reasons)}`,
        item.fit != null ? `AI fit ${item.fit}/100${item.fitReason ? `: ${item.fitReason}` : ''}` : '',
        item.notAFitUrl ? `Not a fit? ${item.notAFitUrl}` : '',
      ]
        .filter(Boolean)
        .map((line, i) => (i === 0 ? line : `  ${line}`))
        .join('\n'),
    )
    .join('\n\n');
}

/** Every email's footer: what Scout sent you (the archive), change preferences, and leave in one click. */
export function footerLinks(settings: MailSettings, subscriber: Pick<Subscriber, 'id' | 'linkVersion'>, now: Date) {
  const link = {
    appUrl: settings.appUrl,
    uid: subscriber.id,
    linkVersion: subscriber.linkVersion,
    secret: settings.linkSecret,
    issuedAt: now,
  };
  return { archiveUrl: archiveUrl(link), unsubscribeUrl: unsubscribeUrl(link), preferencesUrl: preferencesUrl(link) };
}

/**
 * An email of postings' footer adds the subscriber's private Atom feed to the links every email
 * carries, signed with their current feed version as the preferences page shows it: revoking the
 * feed URL there kills this one too.
 */
export function postingsFooterLinks(
  settings: MailSettings,
  subscriber: Pick<Subscriber, 'id' | 'linkVersion' | 'feedTokenVersion'>,
  now: Date,
) {
  const feed = feedUrl({
    appUrl: settings.appUrl,
    uid: subscriber.id,
    linkVersion: subscriber.linkVersion,
    secret: settings.linkSecret,
    issuedAt: now,
    version: subscriber.feedTokenVersion ?? 0,
  });
  return { ...footerLinks(settings, subscriber, now), feedUrl: feed };
}

/** The HTML footer's links, in its order, for whoever reads the plain text. */
export const textFooter = (footer: { archiveUrl: string; unsubscribeUrl: string; preferencesUrl: string; feedUrl?: string }) =>
  `\n\n--\nYour archive: ${footer.archiveUrl}\n${footer.feedUrl ? `Atom feed: ${footer.feedUrl}\n` : ''}Change preferences: ${footer.preferencesUrl}\nUnsubscribe: ${footer.unsubscribeUrl}\n`;

export function unsubscribeHeaders(url: string): Record<string, string> {
  // RFC 8058: mail clients show a one-click unsubscribe and POST "List-Unsubscribe=One-Click" to the URL.
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/** What a subject names of a posting: its title, its employer, its pay in short (email-subject.ts). */
const subjectMatchOf = (item: ScoredPosting | undefined): SubjectMatch | null =>
  item ? { title: item.posting.title, company: item.posting.company ?? null, pay: subjectPay(item.posting.budget) } : null;

/**
 * What an email of postings starts from: its items best first, each with its not-a-fit link; the
 * best one, for the subject; the keywords-only note; the footer's links.
 */
function postingsEmailParts(input: { subscriber: EmailSubscriber; items: ScoredPosting[]; settings: MailSettings; now: Date }) {
  const ranked = [...input.items].sort(byRank);
  return {
    items: ranked.map(notAFitLinks(input.settings, input.subscriber, input.now)),
    best: subjectMatchOf(ranked[0]),
    note: keywordsOnlyNote(input.items),
    footer: postingsFooterLinks(input.settings, input.subscriber, input.now),
  };
}

export async function composeInstantAlert(input: {
  subscriber: EmailSubscriber;
  items: ScoredPosting[];
  settings: MailSettings;
  now: Date;
}): Promise<EmailPayload> {
  const { items, best, note, footer } = postingsEmailParts(input);
  const html = await renderInstantAlert({ items, note, footer });
  const subject = alertSubject(items.length, best);
  const text = `${items.length === 1 ? 'A new posting fits you' : `${items.length} new postings fit you`}:\n\n${note ? `${note}\n\n` : ''}${itemsAsText(items)}${textFooter(footer)}`;
  return {
    from: input.settings.from,
    to: input.subscriber.email,
    subject,
    html,
    text,
    headers: unsubscribeHeaders(footer.unsubscribeUrl),
  };
}

/**
 * The first email after a confirmation: the best matches of the window before it, and when the
 * next email comes. Rendered by React Email itself rather than the prerendered emails: one per
 * confirmation is far from the hot path they exist for.
 */
export async function composeWelcome(input: {
  subscriber: EmailSubscriber;
  items: ScoredPosting[];
  windowDays: number;
  nextEmail: string;
  settings: MailSettings;
  now: Date;
}): Promise<EmailPayload> {
  const { items, best, note, footer } = postingsEmailParts(input);
  const html = await render(
    <WelcomeEmail items={items} windowDays={input.windowDays} nextEmail={input.nextEmail} footer={footer} note={note} />,
  );
  const bestOf = items.length === 1 ? 'the best match' : `the best ${items.length} matches`;
  const subject = welcomeSubject(items.length, best);
  const text = `Welcome to Scout. Your subscription is confirmed; here is ${bestOf} of the last ${input.windowDays} days, best fit first.\n${input.nextEmail}\n\n${note ? `${note}\n\n` : ''}${itemsAsText(items)}${textFooter(footer)}`;
  return {
    from: input.settings.from,
    to: input.subscriber.email,
    subject,
    html,
    text,
    headers: unsubscribeHeaders(footer.unsubscribeUrl),
  };
}

const dayLabelFormat = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
// A flush labels thousands of digests with a handful of periods: each label is worked out once.
const dayLabels = new Map<string, string>();

/** "Monday 30 November" for a daily digest's local date; "the week of Monday 30 November" for a weekly one's ISO week. */
export function digestPeriodLabel(period: string): string {
  let label = dayLabels.get(period);
  if (label === undefined) {
    const start = periodStart(period) ?? period;
    const date = dayLabelFormat.format(new Date(`${start}T12:00:00Z`));
    label = isWeekPeriod(period) ? `the week of ${date}` : date;
    if (dayLabels.size >= 1_000) dayLabels.clear();
    dayLabels.set(period, label);
  }
  return label;
}

export async function composeDailyDigest(input: {
  subscriber: EmailSubscriber;
  items: ScoredPosting[];
  moreCount: number;
  day: string;
  /** The near-miss line's counts; absent, no line. */
  filteredOut?: FilteredOut;
  /** When the next digest comes, on the subscriber's clock (describeNextDigest); absent, no line. */
  nextDigest?: string | null;
  /** What the sources covered, read once per flush; absent, no footer line. */
  coverage?: SourceCoverage | null;
  settings: MailSettings;
  now: Date;
}): Promise<EmailPayload> {
  const { items, best, note, footer } = postingsEmailParts(input);
  const dayLabel = digestPeriodLabel(input.day);
  const nearMiss = nearMissLine(input.filteredOut);
  const sourcesLine = sourcesCheckedLine(input.coverage, input.now, input.subscriber.timezone);
  const nextDigest = input.nextDigest ?? null;
  const html = await renderDailyDigest({ dayLabel, items, moreCount: input.moreCount, note, nearMiss, nextDigest, sourcesLine, footer });
  const more = `${input.moreCount > 0 ? `\n\n${input.moreCount} more matched with a lower score.` : ''}${nextDigest ? `\n\n${nextDigest}` : ''}`;
  const missed = nearMiss ? `\n\n${nearMiss} Change what you get: ${footer.preferencesUrl}` : '';
  const checked = sourcesLine ? `\n\n${sourcesLine}` : '';
  const subject = digestSubject(items.length + input.moreCount, best);
  const text = `Your Scout digest for ${dayLabel}:\n\n${note ? `${note}\n\n` : ''}${itemsAsText(items)}${more}${missed}${checked}${textFooter(footer)}`;
  return {
    from: input.settings.from,
    to: input.subscriber.email,
    subject,
    html,
    text,
    headers: unsubscribeHeaders(footer.unsubscribeUrl),
  };
}
