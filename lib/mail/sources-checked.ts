import type { SourceCoverage } from '../feeds/source-coverage';
import { DAY_MS } from '../store/timestamps';

// One set of formatters per zone: a flush writes thousands of digests in a few zones.
const formats = new Map<string, { day: Intl.DateTimeFormat; weekday: Intl.DateTimeFormat; dayAndMonth: Intl.DateTimeFormat }>();
function formatsIn(timeZone: string) {
  let found = formats.get(timeZone);
  if (!found) {
    found = {
      day: new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone }),
      weekday: new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone }),
      dayAndMonth: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', timeZone }),
    };
    if (formats.size >= 1_000) formats.clear();
    formats.set(timeZone, found);
  }
  return found;
}
/** The zone's formatters; UTC's for no zone or one this runtime does not know. */
function safeFormatsIn(timeZone: string | null | undefined) {
  try {
    return formatsIn(timeZone || 'UTC');
  } catch {
    return formatsIn('UTC');
  }
}

/**
 * "today", "Tuesday" within the last six days, "24 November" before that: days as the subscriber's
 * clock counts them (their digest's day is theirs too), UTC's when they chose no zone.
 */
export function sinceWhen(since: Date, now: Date, timeZone?: string | null): string {
  const f = safeFormatsIn(timeZone);
  const sinceDay = f.day.format(since);
  const today = f.day.format(now);
  if (sinceDay === today) return 'today';
  const days = (Date.parse(`${today}T00:00:00Z`) - Date.parse(`${sinceDay}T00:00:00Z`)) / DAY_MS;
  return days <= 6 ? f.weekday.format(since) : f.dayAndMonth.format(since);
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/**
 * The digest footer's line: "Checked 412 postings from 6 sources; 1 source unreachable since
 * Tuesday." Null when no source was asked lately (nothing true to say).
 */
export function sourcesCheckedLine(coverage: SourceCoverage | null | undefined, now: Date, timeZone?: string | null): string | null {
  if (!coverage || coverage.sources === 0) return null;
  const checked = `Checked ${plural(coverage.postings, 'posting')} from ${plural(coverage.sources, 'source')}`;
  if (coverage.unreachable === 0) return `${checked}.`;
  const since = coverage.unreachableSince ? ` since ${sinceWhen(coverage.unreachableSince, now, timeZone)}` : '';
  return `${checked}; ${plural(coverage.unreachable, 'source')} unreachable${since}.`;
}
