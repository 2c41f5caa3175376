import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The operator's session on /admin: a signed cookie naming a session the server holds.
 *   value = v2.<sessionId>.<expiresAtMs>.<base64url HMAC-SHA256(sessionKey, "v2.<sessionId>.<expiresAtMs>")>
 * The key is derived from ADMIN_SECRET, so rotating the secret ends every session at once; the
 * expiry is inside the signed text, so it is checked here, never trusted to the browser's Max-Age.
 * The signature alone is not enough: `adminSessions/{sessionId}` must still exist (admin-sessions.ts),
 * so logging out ends the session on the server, not only in the browser that logged out.
 */
export const SESSION_COOKIE = 'scout_admin';
export const SESSION_TTL_MS = 8 * 3_600_000;

const VERSION = 'v2';
const SESSION_PATTERN = /^v2\.([A-Za-z0-9_-]{24})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

/** 144 random bits, base64url: 24 characters. */
export const newSessionId = () => randomBytes(18).toString('base64url');

/** One key per purpose, so a value signed for one use (a flash message) never passes as another (a session). */
export const deriveKey = (secret: string, purpose: 'session' | 'flash' | 'login') =>
  createHmac('sha256', secret).update(`scout-admin:${purpose}`).digest();

export const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();

/** Equal MACs, compared in constant time (both are 32 bytes, so no length leaks either). */
export const sameMac = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/**
 * Is `offered` the admin secret? Both sides go through HMAC-SHA256 first, so the comparison is
 * over two 32-byte digests: neither the secret's content nor its length shows in the timing.
 */
export function isAdminSecret(offered: string, secret: string): boolean {
  const key = deriveKey(secret, 'login');
  return timingSafeEqual(hmac(key, offered), hmac(key, secret));
}

export function createSessionValue(input: { secret: string; now: Date; ttlMs?: number; sessionId?: string }): {
  value: string;
  sessionId: string;
  expiresAt: Date;
} {
  const sessionId = input.sessionId ?? newSessionId();
  const expiresAt = new Date(input.now.getTime() + (input.ttlMs ?? SESSION_TTL_MS));
  const text = `${VERSION}.${sessionId}.${expiresAt.getTime()}`;
  return { value: `${text}.${hmac(deriveKey(input.secret, 'session'), text).toString('base64url')}`, sessionId, expiresAt };
}

export type SessionCheck =
  { ok: true; sessionId: string; expiresAt: Date } | { ok: false; reason: 'missing' | 'malformed' | 'bad-signature' | 'expired' };

/**
 * Verifies a cookie value: its shape, its signature (constant time), then its expiry against
 * `now`. Says nothing about whether the session was since ended: that is the store's to answer.
 */
export function verifySessionValue(value: string | null | undefined, input: { secret: string; now: Date }): SessionCheck {
  if (!value) return { ok: false, reason: 'missing' };
  const match = SESSION_PATTERN.exec(value);
  if (!match) return { ok: false, reason: 'malformed' };
  const [, sessionId, expiresAtMs, signature] = match;
  const expected = hmac(deriveKey(input.secret, 'session'), `${VERSION}.${sessionId}.${expiresAtMs}`);
  if (!sameMac(Buffer.from(signature, 'base64url'), expected)) return { ok: false, reason: 'bad-signature' };
  const expiresAt = new Date(Number(expiresAtMs));
  if (expiresAt.getTime() <= input.now.getTime()) return { ok: false, reason: 'expired' };
  // Signed by us, but for longer than a session lasts (a clock that jumped, a shorter TTL since): refuse.
  if (expiresAt.getTime() - input.now.getTime() > SESSION_TTL_MS) return { ok: false, reason: 'expired' };
  return { ok: true, sessionId, expiresAt };
}

/** The cookie's attributes: only ever sent to /admin, never to script, never on a cross-site request. */
export function sessionCookie(input: { value: string; maxAgeSec: number; secure: boolean }): string {
  return cookie(SESSION_COOKIE, input.value, input.maxAgeSec, input.secure);
}

export const clearedSessionCookie = (secure: boolean) => cookie(SESSION_COOKIE, '', 0, secure);

export function cookie(name: string, value: string, maxAgeSec: number, secure: boolean): string {
  return `${name}=${value}; Max-Age=${maxAgeSec}; Path=/admin; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** One cookie's value from the request's Cookie header, or null. */
export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get('cookie');
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Secure cookies when the app is served over https (always in production; the local stack runs on http). */
export const isSecureApp = (appUrl: string) => appUrl.startsWith('https://');
