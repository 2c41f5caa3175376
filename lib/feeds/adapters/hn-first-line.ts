import type { Budget } from '../posting';
import { parsePayText } from '../../pay/parse-pay';

/** What the first line of a "Who is hiring?" comment says, when it follows the thread's convention. */
export type HiringLine = {
  company: string;
  role: string;
  location: string | null;
  /** True for REMOTE, false for ONSITE or hybrid, null when the line says neither. */
  remote: boolean | null;
  budget: Budget | null;
  /** Employment terms ("Full-time", "Contract") and a YC batch ("YC W24"). */
  tags: string[];
};

// The thread's convention is `Company | Role | Location | REMOTE | Salary | ...`; some posters use
// spaced em or en dashes instead. A dash written without spaces is a range ("€85k–€105k"), never a separator.
const SEPARATORS = [/\s*\|\s*/, /\s+—\s+/, /\s+–\s+/, /\s+\/\s+/];
const MAX_COMPANY = 80;
const MAX_COMPANY_WORDS = 6;
const MAX_FIELD = 160;
const MAX_LINE = 400;

const REMOTE = /\bremote(?:ly)?\b|\bwfh\b|\banywhere\b/i;
const ONSITE = /\bon-?site\b|\bin[- ]office\b|\bin[- ]person\b|\bno remote\b/i;
const HYBRID = /\bhybrid\b/i;
const NOT_REMOTE = /\bno[- ]remote\b|\bnot remote\b/i;
const PURE_ARRANGEMENT =
  /^(?:remote|onsite|on-site|hybrid|in[- ]office|wfh)(?:\s*(?:\([^)]*\)|or|\/|,|and|only|ok|friendly|first|possible|-|\b(?:remote|onsite|on-site|hybrid|us|eu|uk)\b))*$/i;
const TERM = String.raw`(?:(?:full|part)[- ]?time|contract(?:or)?|contract[- ]to[- ]hire|freelance|intern(?:ship)?s?|permanent|temporary|ft|pt)`;
// "Full-time", "Full-time / Contract", "3-month contract, likely extension" — not "Contract iOS Developer".
const EMPLOYMENT = new RegExp(`^${TERM}(?:\\s*(?:/|,|or|and|&)\\s*${TERM})*$|^\\d+[- ]?(?:day|week|month|year)s?\\s+contract\\b`, 'i');
const URL = /^(?:https?:\/\/|www\.)\S+$|^\S+@\S+\.\S+$/i;
const YC_BATCH = /\s*\((YC\s+[SWFX]\d{2})\)\s*/i;
const ROLE_WORDS =
  /\b(?:engineers?|engineering|developers?|dev|designers?|design|managers?|scientists?|leads?|head|director|analysts?|architects?|sre|devops|administrators?|admin|specialists?|consultants?|recruiters?|writers?|researchers?|marketers?|marketing|sales|account executive|product|cto|cfo|coo|vp|founding|founder|interns?|tester|qa|ml|ai|data|frontend|front-end|backend|back-end|full[- ]?stack|mobile|ios|android|software|programmer|technician|operations|support|success|roles?|positions?|various|multiple)\b/i;

/**
 * Reads a "Who is hiring?" first line: `Company | Role | Location | REMOTE | $150k-$200k | ...`,
 * in any order after the company. Each field is classed by what it looks like — an arrangement
 * token (REMOTE, ONSITE, Hybrid), money, an employment term, a link, a role (has a job word), a
 * place (capitalised words, "City, Country") — so the order posters choose does not matter.
 * Null when the line does not follow the convention (prose, one field, an over-long company):
 * the caller then uses the whole comment as the title.
 */
export function parseHiringLine(line: string): HiringLine | null {
  const text = line.replace(/\s+/g, ' ').trim();
  if (!text || text.length > MAX_LINE) return null;
  const fields = splitFields(text);
  if (!fields) return null;
  const [first, ...rest] = fields;
  const tags: string[] = [];
  const batch = YC_BATCH.exec(first);
  if (batch) tags.push(batch[1].replace(/\s+/g, ' ').toUpperCase());
  const named = first.replace(YC_BATCH, ' ').trim();
  // "PrairieLearn (Remote US)": where and how the job is worked, put beside the name, is not part of it.
  const aside = companyAside(named);
  const company = aside ? aside.company : named;
  // A sentence is not a company name: "We are hiring engineers in Berlin".
  if (!company || company.length > MAX_COMPANY || company.split(' ').length > MAX_COMPANY_WORDS || /[.!?]$/.test(company)) return null;

  let remote: boolean | null = aside?.remote ?? null;
  let budget: Budget | null = null;
  const arrangements: string[] = [];
  const candidates: string[] = [];
  for (const field of rest) {
    if (URL.test(field)) continue;
    if (EMPLOYMENT.test(field)) {
      // "3-month contract, likely extension" is the tag "Contract"; the details stay in the description.
      tags.push(/^\d/.test(field) ? 'Contract' : field);
      continue;
    }
    const mentionsRemote = REMOTE.test(field) && !NOT_REMOTE.test(field);
    const mentionsOnsite = ONSITE.test(field) || HYBRID.test(field);
    if (mentionsRemote) remote = true;
    else if (mentionsOnsite && remote === null) remote = false;
    if ((mentionsRemote || mentionsOnsite) && PURE_ARRANGEMENT.test(field)) {
      arrangements.push(field);
      continue;
    }
    const salary: Budget | null = budget ? null : parsePayText(field, { within: 'field' });
    if (salary) {
      budget = salary;
      continue;
    }
    candidates.push(field);
  }

  const role = candidates.find((field) => ROLE_WORDS.test(field)) ?? candidates[0];
  if (!role || role.length > MAX_FIELD) return null;
  const place = candidates.find(
    (field) => field !== role && !ROLE_WORDS.test(field) && (looksLikePlace(field) || REMOTE.test(field) || ONSITE.test(field)),
  );
  // "REMOTE (EU)" says where, too: kept beside the place, or as the location when there is no place.
  const region = arrangements.find((field) => /\(.+\)/.test(field));
  const location = [place, region, aside?.place].filter(Boolean).join(' · ') || null;
  return { company, role, location, remote, budget, tags };
}

const ASIDE = /^(.*?)\s*\(([^()]+)\)$/;
const ARRANGEMENT_WORDS = /\b(?:remote(?:ly)?|wfh|on-?site|in[- ]office|in[- ]person|hybrid|only|friendly|first|ok)\b/gi;

/**
 * The parenthesis closing a company field, when it says how or where the job is worked
 * ("Remote US", "Onsite, Berlin", "NYC"): the company without it, the remote flag it states, the
 * place left once the arrangement words are gone. Null for any other parenthesis ("formerly Acme").
 */
function companyAside(field: string): { company: string; remote: boolean | null; place: string | null } | null {
  const match = ASIDE.exec(field);
  if (!match || !match[1]) return null;
  const inside = match[2].trim();
  const mentionsRemote = REMOTE.test(inside) && !NOT_REMOTE.test(inside);
  const mentionsOnsite = ONSITE.test(inside) || HYBRID.test(inside);
  const place = inside
    .replace(ARRANGEMENT_WORDS, ' ')
    .replace(/^[\s,;/&-]+|[\s,;/&-]+$/g, '')
    .replace(/\s+/g, ' ');
  if (!mentionsRemote && !mentionsOnsite && !looksLikePlace(inside)) return null;
  return {
    company: match[1].trim(),
    remote: mentionsRemote ? true : mentionsOnsite ? false : null,
    place: place && (looksLikePlace(place) || /^[A-Z]{2,4}$/.test(place)) ? place : null,
  };
}

function splitFields(text: string): string[] | null {
  for (const separator of SEPARATORS) {
    const fields = text
      .split(separator)
      .map((field) => field.trim())
      .filter(Boolean);
    // A pipe is never prose; a dash or slash is, unless it separates at least three fields.
    if (fields.length >= (separator === SEPARATORS[0] ? 2 : 3)) return fields.every((field) => field.length <= MAX_LINE) ? fields : null;
  }
  return null;
}

/** "Berlin, Germany", "New York, NY", "London", "San Francisco Bay Area": capitalised words, maybe comma-separated. */
function looksLikePlace(field: string): boolean {
  if (/\d/.test(field) && !/\bD\.?C\.?\b/.test(field)) return false;
  const parts = field.split(/\s*(?:,|;|\bor\b|\band\b|&|\/)\s*/).filter(Boolean);
  if (parts.length === 0 || parts.length > 6) return false;
  return parts.every((part) =>
    /^(?:\p{Lu}[\p{L}.'-]*|of|de|la|am|upon|the|[(][^)]*[)])(?:\s+(?:\p{Lu}[\p{L}.'-]*|of|de|la|am|upon|the|[(][^)]*[)]))*$/u.test(part),
  );
}
