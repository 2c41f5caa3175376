import { POPULAR_DOMAINS, POPULAR_TLDS, run } from '@zootools/email-spell-checker';

/**
 * "Did you mean new.person@gmail.com?": the likely intended address when the domain looks like a
 * typo of a big mail provider's (gmial.con, hotmial.com, yaho.com, outlok.com), else null. Runs in
 * the browser (the landing form suggests as the visitor types) and on the server (a signup with a
 * suspect domain is asked to confirm), with the same answer on both.
 *
 * The distance work is @zootools/email-spell-checker's (mailcheck's algorithm, maintained); Scout
 * only narrows what it may suggest, because a signup is held back on a suggestion and a false one
 * costs a real person a click:
 * - only a domain on PROVIDER_DOMAINS is ever suggested: the library would otherwise "fix" any
 *   top-level domain it does not know (fastmail.fm → fastmail.fr, mailbox.org → mail.org);
 * - never a domain that starts with another letter: a short real domain is often a letter away
 *   from a big one (a1.net and cox.net, uol.com.br and aol.com), while typing slips inside a word;
 * - a provider's own domain under a country's ending it serves (yahoo.fr, hotmail.co.uk, gmx.at)
 *   is left alone: PROVIDER_FAMILIES with COUNTRY_ENDINGS.
 * A suggestion that is not a provider's domain yet is checked once more, with the library's own
 * families, so that two slips at once come back whole: gmial.con → gmail.cn → gmail.com.
 */
export function emailTypoSuggestion(email: string): string | null {
  const typed = email.trim();
  const at = typed.lastIndexOf('@');
  if (at <= 0 || at === typed.length - 1) return null;
  const domain = typed.slice(at + 1).toLowerCase();
  if (PROVIDERS.has(domain)) return null;
  let suggested = run({
    email: typed,
    domains: PROVIDER_DOMAINS,
    secondLevelDomains: PROVIDER_FAMILIES,
    topLevelDomains: COUNTRY_ENDINGS,
  })?.domain;
  if (suggested && !PROVIDERS.has(suggested)) suggested = run({ email: `x@${suggested}`, domains: PROVIDER_DOMAINS })?.domain;
  if (!suggested || !PROVIDERS.has(suggested) || suggested === domain || suggested[0] !== domain[0]) return null;
  return `${typed.slice(0, at)}@${suggested}`;
}

/** The library's popular domains, and the big ones it knows only as families (hotmail, yahoo…). */
export const PROVIDER_DOMAINS = [
  ...POPULAR_DOMAINS,
  'hotmail.com',
  'outlook.com',
  'live.com',
  'yahoo.com',
  'mac.com',
  'fastmail.com',
  'gmx.net',
  'gmx.de',
  'gmx.com',
  'mail.com',
  'email.com',
  'pm.me',
  'aol.co.uk',
];
const PROVIDERS = new Set(PROVIDER_DOMAINS);

/** Providers whose name is theirs under many endings: a known ending after one of these is no typo. */
const PROVIDER_FAMILIES = ['yahoo', 'hotmail', 'live', 'outlook', 'gmail', 'icloud', 'gmx', 'yandex', 'protonmail', 'aol'];

/**
 * The library's endings, with the two-part ones of big countries it lacks (hotmail.com.br), and
 * without `co`: gmail.co is the typo, and no provider family lives under .co alone.
 */
const COUNTRY_ENDINGS = [
  ...POPULAR_TLDS.filter((ending) => ending !== 'co'),
  'com.br',
  'com.mx',
  'com.ar',
  'co.in',
  'co.za',
  'com.tr',
  'co.kr',
  'com.sg',
  'com.hk',
  'com.cn',
];
