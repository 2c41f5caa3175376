import type { SourceCoverage } from '../feeds/source-coverage';
import { DAY_MS, utcDay } from '../store/timestamps';

const weekday = new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone: 'UTC' });
const dayAndMonth = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' });

/** "today", "Tuesday" within the last six days, "24 November" before that (UTC, as the digest's day). */
export function sinceWhen(since: Date, now: Date): string {
  if (utcDay(since) === utcDay(now)) return 'today';
  const days = (Date.parse(`${utcDay(now)}T00:00:00Z`) - Date.parse(`${utcDay(since)}T00:00:00Z`)) / DAY_MS;
  return days <= 6 ? weekday.format(since) : dayAndMonth.format(since);
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/**
 * The digest footer's line: "Checked 412 postings from 6 sources; 1 source unreachable since
 * Tuesday." Null when no source was asked lately (nothing true to say).
 */
export function sourcesCheckedLine(coverage: SourceCoverage | null | undefined, now: Date): string | null {
  if (!coverage || coverage.sources === 0) return null;
  const checked = `Checked ${plural(coverage.postings, 'posting')} from ${plural(coverage.sources, 'source')}`;
  if (coverage.unreachable === 0) return `${checked}.`;
  const since = coverage.unreachableSince ? ` since ${sinceWhen(coverage.unreachableSince, now)}` : '';
  return `${checked}; ${plural(coverage.unreachable, 'source')} unreachable${since}.`;
}
