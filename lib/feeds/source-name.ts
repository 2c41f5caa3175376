import { isIP } from 'node:net';
import { normaliseText } from './job-identity';
import { cleanPlainText } from './plain-text';

/**
 * How a card names the place a job was listed ("Seen on …"). An API kind knows its board's name
 * (its adapter's `siteName` or `label`); a generic feed states its own in its title, else only its
 * address says where it is. A bare IP address names nothing a reader knows, so it is the last resort.
 */

/** Longest name taken from a feed's title: past it, the title is a sentence, not a name. */
const MAX_SITE_NAME = 60;
/** Host labels that say what a host serves, not whose it is ("jobs.example.com"). */
const GENERIC_HOST_LABELS = new Set(['www', 'jobs', 'job', 'careers', 'career', 'feed', 'feeds', 'rss', 'api', 'boards', 'board']);
/** "All jobs | Gigboard", "Jobs - EU Remote Jobs", "We Work Remotely: Remote jobs in …". */
const TITLE_SEPARATOR = /\s+[-–—|·]\s+|:\s+/;

/** "example.com" for https://www.example.com/jobs.rss: the host without `www.`; null for an IP address or no URL. */
export function hostName(url: string | null): string | null {
  if (!url) return null;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (!bare || isIP(bare) !== 0) return null;
  return bare.replace(/^www\./, '');
}

/**
 * The name a feed goes by, from its own title: the part of the title its host is named after
 * ("Jobs Archive | Jobspresso" at jobspresso.co → "Jobspresso", "Remote Jobs on NoDesk" at
 * nodesk.co → "NoDesk"); else, for a title of parts, the site's part by the two conventions
 * ("All jobs | Gigboard": the last; "Gigboard: all jobs": the first); else the whole title when
 * it is short enough to be a name. Null when the feed states no usable title.
 */
export function feedSiteName(feedTitle: string | null, url: string | null): string | null {
  // Text from outside like any: invisible characters dropped; every caller escapes it where it shows.
  const title = cleanPlainText(feedTitle ?? '', 1_000)
    .replace(/\s+/g, ' ')
    .trim();
  if (!title) return null;
  const hostKeys = hostKeysOf(url);
  const named = hostKeys.size > 0 ? wordsNamingTheHost(title, hostKeys) : null;
  if (named) return named;
  const parts = title.split(TITLE_SEPARATOR).map((part) => part.trim());
  if (parts.length > 1) {
    const byColon = /^[^:]+:\s/.test(title) && !/\s[-–—|·]\s/.test(title);
    const part = byColon ? parts[0] : parts.at(-1)!;
    if (part && part.length <= MAX_SITE_NAME) return part;
  }
  return title.length <= MAX_SITE_NAME ? title : null;
}

/**
 * A generic feed's name on a card: its own title's name for itself (feedSiteName), else its host
 * ("example.com"), else the name the operator gave it in FEED_URLS (a derived id only repeats the
 * address), else the address as it is.
 */
export function feedSourceName(input: { feedTitle: string | null; url: string; sourceId: string; derivedId: boolean }): string {
  const named = feedSiteName(input.feedTitle, input.url) ?? hostName(input.url);
  if (named) return named;
  if (!input.derivedId) return input.sourceId;
  try {
    return new URL(input.url).hostname;
  } catch {
    return input.sourceId;
  }
}

/** The keys (letters and digits only) a host is named by: its labels but the generic ones and the top-level domain. */
function hostKeysOf(url: string | null): Set<string> {
  const host = hostName(url);
  if (!host) return new Set();
  const labels = host.split('.').slice(0, -1);
  return new Set(
    labels
      .filter((label) => !GENERIC_HOST_LABELS.has(label))
      .map(compactKey)
      .filter((key) => key.length >= 3),
  );
}

/** The shortest run of the title's words whose letters spell a host key: "We Work Remotely" for weworkremotely.com. */
function wordsNamingTheHost(title: string, hostKeys: Set<string>): string | null {
  const words = title.split(/\s+|(?<=\S)[:|·]/).filter(Boolean);
  let best: string | null = null;
  for (let start = 0; start < words.length; start++) {
    let key = '';
    for (let end = start; end < words.length; end++) {
      key += compactKey(words[end]);
      if (hostKeys.has(key)) {
        const run = words.slice(start, end + 1).join(' ');
        if (!best || run.length < best.length) best = run;
        break;
      }
      if (key.length > 40) break;
    }
  }
  return best?.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '') || null;
}

/** "We Work Remotely" → "weworkremotely": a name compared across spacing, case and accents. */
export function compactKey(text: string): string {
  return normaliseText(text).replace(/\s+/g, '');
}
