import { normaliseText } from './job-identity';
import { compactKey } from './source-name';

/**
 * What a card shows of a posting's title and text, without what only the board or the relay it
 * came through adds: the site's name after the title, the employer's name around it when the card
 * names the employer anyway, a feed's own labels ("Posted On: … Category: … Country: …") and its
 * calls to action ("click to apply").
 *
 * Display only: emails, the archive, the private feed and the preview call these on what they show.
 * The stored posting keeps its text as the source gave it, because matching reads the whole of it
 * (a keyword in "Skills: …", an exclude in "Country: …"), and the facts those labels state are read
 * from it when the posting is made (pay: lib/pay; skills and the client's country: to-posting.ts).
 * Pure, and conservative: a title or text that would be left empty is shown as it is.
 */

/** The names a title's wrappers may repeat: where the job was listed (a card's "Seen on" labels) and who hires. */
export type TitleNames = { sources?: readonly string[]; company?: string | null };

// " - Gigboard", " | Acme", " · Upwork", " — Acme": a part after a spaced separator.
const SEPARATOR = /\s+[-–—|·]\s+/g;
// "Acme: Designer", "Acme - Designer", "Acme | Designer".
const LEADING_PART = /^([^:|·–—-]{1,80}?)(?::\s+|\s+[-–—|·]\s+)(\S[\s\S]*)$/;
// "Designer at Acme", "Designer @ Acme".
const AT_COMPANY = /^(.+)\s+(?:at|@)\s+([^@|]{1,80})$/i;
// Relays that end every title with their name, whichever source relays them.
const ALWAYS_SITES = ['upwork'];
/** Platforms that host employers' own boards: they never add their name to a title, and "Grower - Greenhouse" is a job. */
const HOSTING_PLATFORMS = new Set(['greenhouse', 'lever', 'ashby']);

/**
 * The title without a trailing site suffix that names where the job was listed (" - Gigboard" on
 * Gigboard's feed, " - Upwork" anywhere), and without the employer's name before or after it
 * ("Beekman Social - Account Manager", "Developer Advocate at Qase") when it is the posting's own
 * company, which the card's employer line shows. One suffix and one employer wrapper at most.
 */
export function cleanPostingTitle(title: string, names: TitleNames = {}): string {
  const original = title.trim();
  let role = original;
  const sites = siteKeys(names.sources ?? []);
  const site = lastPart(role);
  if (site && sites.has(compactKey(site.part))) role = site.rest;
  const company = names.company ? normaliseText(names.company) : '';
  if (company) {
    const atEnd = AT_COMPANY.exec(role);
    const suffix = lastPart(role);
    if (atEnd && normaliseText(atEnd[2]) === company) role = atEnd[1].trim();
    else if (suffix && normaliseText(suffix.part) === company) role = suffix.rest;
    const prefix = LEADING_PART.exec(role);
    if (prefix && normaliseText(prefix[1]) === company) role = prefix[2].trim();
  }
  return role.length >= 2 ? role : original;
}

/** The keys of the names a source goes by on a card: its whole label, and its board's name before " · " unless a hosting platform's. */
function siteKeys(labels: readonly string[]): Set<string> {
  const keys = new Set(ALWAYS_SITES);
  for (const label of labels) {
    const parts = label.split(/\s+·\s+/);
    // Not a host label's parts: "Engineer - Remote" is a job even on remote.co.
    for (const candidate of [label, parts[0]]) {
      const key = compactKey(candidate);
      if (key.length >= 3 && !HOSTING_PLATFORMS.has(key)) keys.add(key);
    }
  }
  return keys;
}

/** The text after the last spaced separator, and the text before it; null without one. */
function lastPart(title: string): { rest: string; part: string } | null {
  let last: RegExpExecArray | null = null;
  for (const match of title.matchAll(SEPARATOR)) last = match;
  if (!last) return null;
  const rest = title.slice(0, last.index).trim();
  const part = title.slice(last.index + last[0].length).trim();
  return rest && part ? { rest, part } : null;
}

/** Upwork's job feed labels (and the boards that copy its format), each on its own line before the stored text was collapsed. */
const FEED_LABEL = /(?<![\p{L}\p{N}])(?:Budget|Hourly Range|Posted On|Category|Skills|Location Requirement|Country)\s*:/gu;
/** A label's value is a line: an amount, a date, a list of skills. Longer, it is prose that happens to follow a word like "Category:". */
const MAX_LABEL_VALUE = 200;
/** A block is two labels at least: one "Skills:" at the end of a posting is the employer's words. */
const MIN_BLOCK_LABELS = 2;

/** What relays put before a posting's own text. */
const OPENINGS: RegExp[] = [
  // LinkedIn's, through Remote OK: "Posted 8:36:42 PM. Executive Assistant…".
  /^Posted\s+\d{1,2}:\d{2}(?::\d{2})?\s*[AP]M\.\s*/i,
  // We Work Remotely's: "Headquarters: London URL: http://www.mathmo.com We're looking…".
  /^Headquarters:[^\n]{0,150}?\s+URL:\s*\S+\s*/,
];
/** Calls to action at the end: the card's title is the link, so the text need not say where to click. */
const CLOSINGS: RegExp[] = [
  /\s*click to apply\.?\s*$/i,
  // We Work Remotely's: "To apply: https://weworkremotely.com/remote-jobs/…".
  /\s*To apply:\s*https?:\/\/\S+\s*$/i,
  // LinkedIn's, through Remote OK.
  /\s*…?\s*See this and similar jobs on LinkedIn\.?\s*$/i,
];

/**
 * A posting's text as a card shows it (before its excerpt is cut): without a relay's opening, a
 * trailing block of a feed's labels ("Budget: $2,500 Posted On: … Category: … Skills: … Country: …",
 * whose facts the posting carries in its own fields) and calls to action at its end.
 */
export function cleanPostingText(text: string): string {
  let clean = text;
  for (const opening of OPENINGS) clean = clean.replace(opening, '');
  clean = withoutClosings(clean);
  clean = withoutLabelBlock(clean);
  clean = withoutClosings(clean).trim();
  return clean;
}

function withoutClosings(text: string): string {
  let clean = text;
  for (let pass = 0; pass < CLOSINGS.length; pass++) {
    const before = clean;
    for (const closing of CLOSINGS) clean = clean.replace(closing, '');
    if (clean === before) break;
  }
  return clean;
}

/** The text before the block of labels that ends it, each label's value short; the text as it is without such a block. */
function withoutLabelBlock(text: string): string {
  const labels = [...text.matchAll(FEED_LABEL)];
  let end = text.length;
  let count = 0;
  for (let i = labels.length - 1; i >= 0; i--) {
    const label = labels[i];
    const value = text.slice(label.index + label[0].length, end);
    if (value.trim().length > MAX_LABEL_VALUE) break;
    end = label.index;
    count++;
  }
  return count >= MIN_BLOCK_LABELS ? text.slice(0, end).trimEnd() : text;
}

/** A posting's title as a card shows it: cleanPostingTitle with the names the posting carries (where it was seen, who hires). */
export function cardTitle(posting: { title: string; company?: string | null; sightings?: readonly { label: string }[] }): string {
  return cleanPostingTitle(posting.title, { sources: (posting.sightings ?? []).map((seen) => seen.label), company: posting.company });
}
