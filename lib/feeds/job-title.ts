import { normaliseText } from './job-identity';
import { MAX_TITLE } from './posting';

/** What a title is read against: the employer the item names, and how the feed names itself. */
export type TitleContext = {
  company: string | null;
  /** The feed titles every item `Company: Role` (titlesNameTheCompany). */
  companyInTitle: boolean;
  /** The feed titles every item `Role at Company`, as NoDesk does (titlesEndWithTheCompany). */
  companyAtEnd?: boolean;
  /** The site's names: the feed title's parts ("All jobs | Gigboard" → "Gigboard") and its host's labels. */
  siteNames?: string[];
};

/**
 * A title's wrappers that only repeat what a posting says elsewhere: the site ("… - Upwork",
 * "… - Gigboard" in Gigboard's feed) or the employer ("Qase: Developer Advocate", "Developer
 * Advocate at Qase"). Matching and the cards want the role alone; the employer, when the title is
 * where the feed names it, becomes the company.
 */
export function unwrapJobTitle(title: string, context: TitleContext): { title: string; company: string | null } {
  let role = withoutSite(title, context.siteNames ?? []);
  let company = context.company;
  const atEnd = !company && context.companyAtEnd ? COMPANY_AT_END.exec(role) : null;
  if (atEnd) {
    company = atEnd[2].trim();
    role = atEnd[1].trim();
  }
  const prefix = COMPANY_PREFIX.exec(role);
  if (prefix && (company ? sameName(prefix[1], company) : context.companyInTitle)) {
    company ??= prefix[1].trim();
    role = prefix[2].trim();
  }
  if (company) {
    const suffix = COMPANY_SUFFIX.exec(role);
    if (suffix && sameName(suffix[2], company)) role = suffix[1].trim();
  }
  return { title: role || title, company };
}

/**
 * Whether a feed names the employer before a colon in every title, as We Work Remotely does
 * ("Mathmo: Maths Coach"). Decided over the whole answer, never one title: "Update: new roles"
 * in a blog's feed is not a company. At least three titles, nine in ten of them of that shape.
 */
export function titlesNameTheCompany(titles: string[], siteNames: string[] = []): boolean {
  return mostTitlesName(titles, siteNames, COMPANY_PREFIX, 1);
}

/**
 * Whether a feed names the employer after "at" in every title, as NoDesk does ("Staff Systems
 * Engineer, IT at GitLab"). Decided over the whole answer as titlesNameTheCompany is: one "Engineer
 * at heart" is no employer, nine titles in ten of that shape are a feed's convention.
 */
export function titlesEndWithTheCompany(titles: string[], siteNames: string[] = []): boolean {
  return mostTitlesName(titles, siteNames, COMPANY_AT_END, 2);
}

function mostTitlesName(titles: string[], siteNames: string[], shape: RegExp, companyGroup: number): boolean {
  if (titles.length < MIN_TITLES) return false;
  const shaped = titles.filter((title) => {
    // A title is capped where postings cap it; a longer one is not read further here either.
    const match = shape.exec(withoutSite(title.slice(0, MAX_TITLE), siteNames));
    return match !== null && match[companyGroup].trim().split(/\s+/).length <= MAX_COMPANY_WORDS;
  });
  return shaped.length >= titles.length * SHARE_OF_TITLES;
}

/** The names a feed goes by: the parts of its title and the labels of its host (not `www` nor the top-level domain). */
export function siteNamesOf(feedTitle: string | null, url: string | null): string[] {
  const parts = (feedTitle ?? '').split(/\s+[-–—|·]\s+|:\s+/).filter((part) => part.trim().length <= MAX_SITE_NAME);
  const labels = hostLabels(url);
  return [...parts, ...labels.filter((label) => label !== 'www')].map(normaliseText).filter(Boolean);
}

// Upwork's job feeds end each title with the site's name, wherever the feed is relayed from.
const UPWORK = 'upwork';
const SITE_SUFFIX = /^(.+?)\s+[-–—|·]\s+([^-–—|·]{1,60})$/;
const COMPANY_PREFIX = /^([^:]{1,80}):\s+(\S[\s\S]*)$/;
// The last "at": a role may hold one ("Engineer at Large at Acme" is Acme's).
const COMPANY_AT_END = /^(.+)\s+at\s+([^@|]{1,80})$/;
const COMPANY_SUFFIX = /^(.+?)\s+(?:at|@|[-–—|])\s+([^-–—|@]{1,80})$/i;
const MIN_TITLES = 3;
const SHARE_OF_TITLES = 0.9;
const MAX_COMPANY_WORDS = 8;
const MAX_SITE_NAME = 60;

function withoutSite(title: string, siteNames: string[]): string {
  const trimmed = title.trim();
  const suffix = SITE_SUFFIX.exec(trimmed);
  if (!suffix) return trimmed;
  const name = normaliseText(suffix[2]);
  return name === UPWORK || siteNames.includes(name) ? suffix[1].trim() : trimmed;
}

function hostLabels(url: string | null): string[] {
  if (!url) return [];
  try {
    return new URL(url).hostname.split('.').slice(0, -1);
  } catch {
    return [];
  }
}

function sameName(a: string, b: string): boolean {
  return normaliseText(a) === normaliseText(b);
}
