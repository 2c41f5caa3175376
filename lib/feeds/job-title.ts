import { normaliseText } from './job-identity';

/**
 * A title's wrappers that only repeat what a posting says elsewhere: the employer ("Qase: Developer
 * Advocate", "Developer Advocate at Qase") or the site (" - Upwork"). Matching and the cards want
 * the role alone; the employer, when the title is where the feed names it, becomes the company.
 */
export function unwrapJobTitle(
  title: string,
  options: { company: string | null; companyInTitle: boolean },
): { title: string; company: string | null } {
  let role = title.replace(SITE_SUFFIX, '').trim();
  let company = options.company;
  const prefix = COMPANY_PREFIX.exec(role);
  if (prefix && (company ? sameName(prefix[1], company) : options.companyInTitle)) {
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
export function titlesNameTheCompany(titles: string[]): boolean {
  if (titles.length < MIN_TITLES) return false;
  const shaped = titles.filter((title) => {
    const prefix = COMPANY_PREFIX.exec(title.replace(SITE_SUFFIX, '').trim());
    return prefix !== null && prefix[1].trim().split(/\s+/).length <= MAX_COMPANY_WORDS;
  });
  return shaped.length >= titles.length * SHARE_OF_TITLES;
}

// Upwork's old job feeds end each title with the site's name.
const SITE_SUFFIX = /\s+[-–—|]\s+Upwork\s*$/i;
const COMPANY_PREFIX = /^([^:]{1,80}):\s+(\S[\s\S]*)$/;
const COMPANY_SUFFIX = /^(.+?)\s+(?:at|@|[-–—|])\s+([^-–—|@]{1,80})$/i;
const MIN_TITLES = 3;
const SHARE_OF_TITLES = 0.9;
const MAX_COMPANY_WORDS = 8;

function sameName(a: string, b: string): boolean {
  return normaliseText(a) === normaliseText(b);
}
