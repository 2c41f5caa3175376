import { normaliseEmail } from './subscriber';

/** Providers known to ignore dots in the local part, by domain; googlemail.com is gmail.com. */
const DOTLESS_DOMAINS: Record<string, string> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The inbox an address reaches, as far as Scout can tell: lowercased, with any `+tag` removed from
 * the local part, and for Gmail without dots. The per-mailbox limit keys on this, so
 * `victim+1@…`, `Victim+2@…` and `v.ictim@gmail.com` share one allowance. Subscribers stay keyed
 * on the exact address (docs/design.md §2.2): this is only who gets mailed how often. Other providers'
 * aliasing (Fastmail's subdomains, Yahoo's `-` disposable names) is not folded.
 */
export function mailboxOf(email: string): string {
  const address = normaliseEmail(email);
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  let local = address.slice(0, at);
  let domain = address.slice(at + 1);
  const plus = local.indexOf('+');
  // "+tag@…" alone names no one else's mailbox: keep it whole.
  if (plus > 0) local = local.slice(0, plus);
  if (DOTLESS_DOMAINS[domain]) {
    domain = DOTLESS_DOMAINS[domain];
    local = local.replaceAll('.', '') || local;
  }
  return `${local}@${domain}`;
}
