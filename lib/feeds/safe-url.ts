const MAX_URL_LENGTH = 2048;

/**
 * Only absolute http(s) URLs survive: a posting link is put in an email
 * as-is, so javascript:, data:, mailto: and friends become null. Relative
 * links are resolved against `base`; credentials in the URL
 * (https://bank.com@evil.example) are a phishing trick and are rejected.
 */
export function toSafeUrl(raw: string | null | undefined, base: string | null): string | null {
  const trimmed = raw?.trim();
  if (!trimmed) return null;
  let url: URL;
  try {
    url = base ? new URL(trimmed, base) : new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  if (url.href.length > MAX_URL_LENGTH) return null;
  return url.href;
}
