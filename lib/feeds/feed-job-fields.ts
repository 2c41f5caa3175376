import { cleanPlainText, collapseWhitespace, htmlToPlainText } from './plain-text';

/**
 * What a job board's feed says of one item beyond RSS and Atom: the elements job boards add to
 * their items (We Work Remotely's `<region>`, `<country>`, `<state>`, `<skills>`, `<type>`; the
 * `job:` or `himalayasJobs:` elements of other boards; the `<company>`, `<city>` of job-feed
 * formats; Teamtailor's `<remoteStatus>` and the city and country of its `<tt:locations>`). They are read by local name, whatever their prefix: real feeds use prefixes they
 * never declare, so a namespace-aware reader would lose them.
 */
export type FeedJobFields = {
  company: string | null;
  /** Where the job may be done, in the feed's words. */
  place: string | null;
  /** From an element that says so (`<remote>true</remote>`); null when none does. */
  remote: boolean | null;
  skills: string[];
  /** Employment type ("Full-Time", "Contract"). */
  type: string | null;
};

type Name = 'company' | 'region' | 'location' | 'city' | 'state' | 'country' | 'remote' | 'skills' | 'type';

// Local names (lowercase) → what they say. Several boards name one thing differently.
const NAMES = new Map<string, Name>([
  ['company', 'company'],
  ['companyname', 'company'],
  ['company_name', 'company'],
  ['hiringorganization', 'company'],
  ['region', 'region'],
  ['locationrestriction', 'region'],
  ['location', 'location'],
  ['joblocation', 'location'],
  ['city', 'city'],
  ['state', 'state'],
  ['country', 'country'],
  ['remote', 'remote'],
  ['isremote', 'remote'],
  ['remotestatus', 'remote'],
  ['skills', 'skills'],
  ['type', 'type'],
  ['jobtype', 'type'],
  ['job_type', 'type'],
  ['employmenttype', 'type'],
]);
const ITEM = new Set(['item', 'entry']);
// The parts of a place that Teamtailor nests in <tt:locations><tt:location>; the first location's win.
const PLACE_PARTS = new Set<Name>(['city', 'state', 'country']);
const MAX_ITEMS = 10_000;
const MAX_VALUE_INPUT = 2_000;
const MAX_SKILLS_INPUT = 50;

/**
 * The job fields of every item or entry of an XML feed, in document order (the order the feed
 * parser gives its items). One pass over the text, never backtracking: a hostile answer costs its
 * length, nothing more. A document that stops making sense (a tag never closed) ends the reading.
 */
export function readFeedJobFields(xml: string): FeedJobFields[] {
  const items: FeedJobFields[] = [];
  const open: string[] = [];
  let itemDepth = -1;
  let fields = new Map<Name, string>();
  let field: { name: Name; depth: number; start: number } | null = null;
  // Once the item's first nested location has closed, the others name other places.
  let placeClosed = false;

  for (let at = xml.indexOf('<'); at !== -1 && items.length < MAX_ITEMS; at = xml.indexOf('<', at)) {
    // Character data and comments hold no elements; a field's value may be wrapped in CDATA.
    const skipTo = xml.startsWith('<![CDATA[', at) ? ']]>' : xml.startsWith('<!--', at) ? '-->' : null;
    if (skipTo) {
      const end = xml.indexOf(skipTo, at);
      if (end === -1) break;
      at = end + skipTo.length;
      continue;
    }
    const end = xml.indexOf('>', at);
    if (end === -1) break;
    const tag = /^<(\/?)(?:[\w.-]+:)?([\w.-]+)/.exec(xml.slice(at, Math.min(end, at + 200)));
    const next = end + 1;
    if (!tag || xml[at + 1] === '?' || xml[at + 1] === '!') {
      at = next;
      continue;
    }
    const local = tag[2].toLowerCase();
    const selfClosing = xml[end - 1] === '/';
    if (tag[1]) {
      // A close tag: of the field being read, of the item, or of anything else open.
      if (field && open.length === field.depth && NAMES.get(local) === field.name) {
        fields.set(field.name, xml.slice(field.start, at));
        field = null;
      }
      if (itemDepth !== -1 && open.length === itemDepth + 2 && local === 'location' && open[itemDepth] === 'locations') placeClosed = true;
      if (itemDepth !== -1 && open.length === itemDepth && ITEM.has(local)) {
        items.push(toJobFields(fields));
        itemDepth = -1;
      }
      open.pop();
    } else if (!selfClosing) {
      open.push(local);
      if (itemDepth === -1 && ITEM.has(local)) {
        itemDepth = open.length;
        fields = new Map();
        placeClosed = false;
      } else if (
        itemDepth !== -1 &&
        NAMES.has(local) &&
        !fields.has(NAMES.get(local)!) &&
        (open.length === itemDepth + 1 || (!placeClosed && nestedPlacePart(open, itemDepth, NAMES.get(local)!)))
      ) {
        field = { name: NAMES.get(local)!, depth: open.length, start: next };
      }
    }
    at = next;
  }
  return items;
}

/**
 * A place's part nested in `locations` (directly or in its `location`), never the container itself.
 * Constant time: an answer nested 400,000 deep costs no more per tag than a flat one.
 */
function nestedPlacePart(open: string[], itemDepth: number, name: Name): boolean {
  const depth = open.length - itemDepth;
  if (!PLACE_PARTS.has(name) || depth > 3 || open[itemDepth] !== 'locations') return false;
  return depth === 2 || open[itemDepth + 1] === 'location';
}

function toJobFields(raw: Map<Name, string>): FeedJobFields {
  const text = (name: Name) => {
    const value = raw.get(name);
    if (value === undefined) return null;
    const unwrapped = value.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1');
    return collapseWhitespace(htmlToPlainText(unwrapped, MAX_VALUE_INPUT)) || null;
  };
  const region = text('region');
  // A board that states a region states where remote workers may be; its city, state and country
  // then name the employer's seat (We Work Remotely: "Anywhere in the World", state "Delaware").
  const place = region ?? text('location') ?? ([text('city'), text('state'), text('country')].filter(Boolean).join(', ') || null);
  const remote = text('remote');
  return {
    company: text('company'),
    place,
    // Teamtailor's remoteStatus: "fully" remote, else "none" or "hybrid" (not remote, as a Hybrid job is on every board).
    remote:
      remote === null
        ? null
        : /^(?:true|yes|1|remote|fully)$/i.test(remote)
          ? true
          : /^(?:false|no|0|none|hybrid)$/i.test(remote)
            ? false
            : null,
    skills: (text('skills') ?? '')
      .split(/[,;|]/)
      .slice(0, MAX_SKILLS_INPUT)
      .map((skill) => cleanPlainText(skill, MAX_VALUE_INPUT).trim())
      .filter(Boolean),
    type: text('type'),
  };
}

// Boards whose every listing is remote, by their own description of themselves; their feeds say so
// once, in their name, rather than per item.
const REMOTE_ONLY_BOARDS = ['weworkremotely.com', 'remotive.com', 'remoteok.com', 'himalayas.app', 'jobicy.com'];

/** Whether the feed at `url` is one of a remote-only board. */
export function isRemoteOnlyBoard(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return false;
  }
  return REMOTE_ONLY_BOARDS.some((board) => host === board || host.endsWith(`.${board}`));
}
