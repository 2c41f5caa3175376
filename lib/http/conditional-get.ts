/**
 * Conditional GET (RFC 9110 §13): whether the client's copy is current, so the answer can be a
 * bodiless 304. If-None-Match, when sent, decides alone (weak comparison: `W/"x"` and `"x"` are
 * the same tag); only without it does If-Modified-Since count, to the second, as HTTP dates are.
 */
export type Validators = { etag: string; lastModified: Date };

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

export function isNotModified(headers: Headers, validators: Validators): boolean {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) {
    if (ifNoneMatch.trim() === '*') return true;
    const ours = opaque(validators.etag);
    return ifNoneMatch.split(',').some((tag) => opaque(tag) === ours);
  }
  const ifModifiedSince = headers.get('if-modified-since');
  if (ifModifiedSince === null) return false;
  const since = Date.parse(ifModifiedSince);
  if (Number.isNaN(since)) return false;
  return Math.floor(validators.lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}

/** The validator headers a response (200 or 304) carries. */
export const validatorHeaders = (validators: Validators): Record<string, string> => ({
  etag: validators.etag,
  'last-modified': validators.lastModified.toUTCString(),
});
