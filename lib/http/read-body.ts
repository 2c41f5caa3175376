import { readCappedBody } from './read-capped-body';

export type BodyRead =
  | { ok: true; type: string; text: string }
  | { ok: false; reason: 'unsupported-type'; type: string }
  | { ok: false; reason: 'too-large' | 'not-utf8' };

/** The media type of a Content-Type header, lower case, without parameters. */
export const mediaTypeOf = (header: string | null) => (header ?? '').split(';')[0].trim().toLowerCase();

/**
 * The one reader of a request body (every form and JSON post): the media type must be one of
 * `types`, then the body is read up to `maxBytes`, counted as it arrives (Content-Length is only a
 * shortcut for the honest: it may be absent or wrong). Whenever the body is refused, its stream is
 * cancelled, never read on. `strict` decoding refuses bytes that are not UTF-8; otherwise they
 * become U+FFFD, as a browser's form decoding does.
 */
export async function readBody(
  request: Request,
  input: { types: readonly string[]; maxBytes: number; utf8?: 'strict' | 'lenient' },
): Promise<BodyRead> {
  const cancel = () => request.body?.cancel().catch(() => undefined);
  const type = mediaTypeOf(request.headers.get('content-type'));
  if (!input.types.includes(type)) {
    await cancel();
    return { ok: false, reason: 'unsupported-type', type };
  }
  if (Number(request.headers.get('content-length') ?? '0') > input.maxBytes) {
    await cancel();
    return { ok: false, reason: 'too-large' };
  }
  const bytes = await readCappedBody(request.body, input.maxBytes);
  if (!bytes) return { ok: false, reason: 'too-large' };
  try {
    return { ok: true, type, text: new TextDecoder('utf-8', { fatal: input.utf8 === 'strict' }).decode(bytes) };
  } catch {
    return { ok: false, reason: 'not-utf8' };
  }
}

export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A posted HTML form (form-encoded, at most `maxBytes`) as its fields. */
export async function readForm(
  request: Request,
  maxBytes: number,
): Promise<{ ok: true; fields: URLSearchParams } | { ok: false; reason: 'unsupported-type' | 'too-large' | 'not-utf8' }> {
  const body = await readBody(request, { types: [FORM_TYPE], maxBytes });
  return body.ok ? { ok: true, fields: new URLSearchParams(body.text) } : { ok: false, reason: body.reason };
}
