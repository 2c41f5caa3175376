import { cookie, deriveKey, hmac, readCookie, sameMac } from './session';

/**
 * What an action says after its redirect (POST → 303 → GET /admin): a short message and, for an
 * action on a subscriber, whose page to show again. It travels in a signed, short-lived cookie
 * rather than the URL, so neither the message nor the subscriber (whose id is their address in
 * base64url) ends up in an access log or the browser's history.
 */
export const FLASH_COOKIE = 'scout_admin_flash';
const FLASH_TTL_MS = 60_000;
const MAX_MESSAGE = 300;

export type Flash = { message: string; uid: string | null };

export function flashCookie(flash: Flash, input: { secret: string; now: Date; secure: boolean }): string {
  const payload = Buffer.from(
    JSON.stringify({ m: flash.message.slice(0, MAX_MESSAGE), u: flash.uid, x: input.now.getTime() + FLASH_TTL_MS }),
  ).toString('base64url');
  const signature = hmac(deriveKey(input.secret, 'flash'), payload).toString('base64url');
  return cookie(FLASH_COOKIE, `${payload}.${signature}`, FLASH_TTL_MS / 1000, input.secure);
}

export const clearedFlashCookie = (secure: boolean) => cookie(FLASH_COOKIE, '', 0, secure);

/** The flash on this request, if any and genuine and fresh; `present` says whether a cookie must be cleared. */
export function readFlash(request: Request, input: { secret: string; now: Date }): { present: boolean; flash: Flash | null } {
  const value = readCookie(request, FLASH_COOKIE);
  if (!value) return { present: false, flash: null };
  const [payload, signature, extra] = value.split('.');
  if (!payload || !signature || extra !== undefined) return { present: true, flash: null };
  if (!sameMac(Buffer.from(signature, 'base64url'), hmac(deriveKey(input.secret, 'flash'), payload))) return { present: true, flash: null };
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { m?: unknown; u?: unknown; x?: unknown };
    if (typeof data.m !== 'string' || typeof data.x !== 'number' || data.x <= input.now.getTime()) return { present: true, flash: null };
    return { present: true, flash: { message: data.m, uid: typeof data.u === 'string' ? data.u : null } };
  } catch {
    return { present: true, flash: null };
  }
}
