import { describe, expect, it } from 'vitest';
import { clearedFlashCookie, flashCookie, readFlash } from '../../lib/admin/flash';
import {
  clearedSessionCookie,
  createSessionValue,
  isAdminSecret,
  readCookie,
  SESSION_TTL_MS,
  sessionCookie,
  verifySessionValue,
} from '../../lib/admin/session';

const SECRET = 'admin-secret-0123456789';
const NOW = new Date('2026-11-30T06:00:00Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

describe('the admin secret', () => {
  it('matches only itself, whatever the length offered', () => {
    expect(isAdminSecret(SECRET, SECRET)).toBe(true);
    expect(isAdminSecret(`${SECRET} `, SECRET)).toBe(false);
    expect(isAdminSecret(SECRET.slice(0, -1), SECRET)).toBe(false);
    expect(isAdminSecret('', SECRET)).toBe(false);
    expect(isAdminSecret('x'.repeat(10_000), SECRET)).toBe(false);
  });
});

describe('the session cookie value', () => {
  it('is v2.<sessionId>.<expiresAtMs>.<base64url HMAC> and verifies until it expires, 8 h later', () => {
    const { value, sessionId, expiresAt } = createSessionValue({ secret: SECRET, now: NOW });
    expect(value).toMatch(/^v2\.[A-Za-z0-9_-]{24}\.\d{13}\.[A-Za-z0-9_-]{43}$/);
    expect(value.split('.')[1]).toBe(sessionId);
    expect(expiresAt.getTime() - NOW.getTime()).toBe(SESSION_TTL_MS);
    expect(verifySessionValue(value, { secret: SECRET, now: NOW })).toEqual({ ok: true, sessionId, expiresAt });
    expect(verifySessionValue(value, { secret: SECRET, now: later(SESSION_TTL_MS - 1) }).ok).toBe(true);
    expect(verifySessionValue(value, { secret: SECRET, now: later(SESSION_TTL_MS) })).toEqual({ ok: false, reason: 'expired' });
  });

  it('is refused when missing or malformed', () => {
    expect(verifySessionValue(null, { secret: SECRET, now: NOW })).toEqual({ ok: false, reason: 'missing' });
    expect(verifySessionValue('', { secret: SECRET, now: NOW })).toEqual({ ok: false, reason: 'missing' });
    const id = 'A'.repeat(24);
    for (const bad of [
      'v1',
      'v2...',
      `v1.1796018400000.${'A'.repeat(43)}`, // the old format, without a session id
      `v2.${id}.notanumber.AAAA`,
      `v2.${id}.1796018400000.${'A'.repeat(44)}`,
      `v2.${'A'.repeat(23)}.1796018400000.${'A'.repeat(43)}`,
      `v2.${id.slice(1)}!.1796018400000.${'A'.repeat(43)}`,
      'admin',
    ]) {
      expect(verifySessionValue(bad, { secret: SECRET, now: NOW }), bad).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('is refused when its expiry was moved later (the signature covers it)', () => {
    const { value } = createSessionValue({ secret: SECRET, now: NOW });
    const [v, id, expires, mac] = value.split('.');
    const extended = `${v}.${id}.${Number(expires) + 3_600_000}.${mac}`;
    expect(verifySessionValue(extended, { secret: SECRET, now: NOW })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('is refused when its session id was swapped for another (the signature covers it)', () => {
    const [v, , expires, mac] = createSessionValue({ secret: SECRET, now: NOW }).value.split('.');
    const other = createSessionValue({ secret: SECRET, now: NOW }).sessionId;
    expect(verifySessionValue(`${v}.${other}.${expires}.${mac}`, { secret: SECRET, now: NOW })).toEqual({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('names a new random session each time', () => {
    const ids = new Set(Array.from({ length: 50 }, () => createSessionValue({ secret: SECRET, now: NOW }).sessionId));
    expect(ids.size).toBe(50);
  });

  it('is refused when its signature was changed by one character', () => {
    const { value } = createSessionValue({ secret: SECRET, now: NOW });
    const last = value.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${value.slice(0, -2)}${last}${value.at(-1)}`;
    expect(verifySessionValue(tampered, { secret: SECRET, now: NOW })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('signed with an old secret is refused after the secret is rotated', () => {
    const { value } = createSessionValue({ secret: SECRET, now: NOW });
    expect(verifySessionValue(value, { secret: `${SECRET}-rotated`, now: NOW })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('that claims to last longer than a session can is refused, even if signed', () => {
    const { value } = createSessionValue({ secret: SECRET, now: NOW, ttlMs: SESSION_TTL_MS + 60_000 });
    expect(verifySessionValue(value, { secret: SECRET, now: NOW })).toEqual({ ok: false, reason: 'expired' });
  });

  it('is not the secret, nor derived from it in a way that shows it', () => {
    const { value } = createSessionValue({ secret: SECRET, now: NOW });
    expect(value).not.toContain(SECRET);
    expect(Buffer.from(value.split('.')[3], 'base64url').toString('latin1')).not.toContain(SECRET);
  });
});

describe('cookie headers', () => {
  it('set the session HttpOnly, SameSite=Strict, Path=/admin, 8 h, Secure only over https', () => {
    const plain = sessionCookie({ value: 'v1.1.x', maxAgeSec: 28_800, secure: false });
    expect(plain).toBe('scout_admin=v1.1.x; Max-Age=28800; Path=/admin; HttpOnly; SameSite=Strict');
    expect(sessionCookie({ value: 'v1.1.x', maxAgeSec: 28_800, secure: true })).toMatch(/; Secure$/);
    expect(clearedSessionCookie(false)).toBe('scout_admin=; Max-Age=0; Path=/admin; HttpOnly; SameSite=Strict');
  });

  it('are read back by name from a Cookie header with others around', () => {
    const request = new Request('http://localhost/admin', { headers: { cookie: 'a=1; scout_admin=v1.2.y ; scout_admin_flash=z' } });
    expect(readCookie(request, 'scout_admin')).toBe('v1.2.y');
    expect(readCookie(request, 'scout_admin_flash')).toBe('z');
    expect(readCookie(request, 'missing')).toBeNull();
    expect(readCookie(new Request('http://localhost/admin'), 'scout_admin')).toBeNull();
  });
});

describe('the flash cookie', () => {
  const withCookie = (header: string) => new Request('http://localhost/admin', { headers: { cookie: header } });
  const valueOf = (setCookie: string) => setCookie.split(';')[0];

  it('carries a message and a subscriber id for a minute, signed', () => {
    const set = flashCookie({ message: 'Paused <b>', uid: 'YWRh' }, { secret: SECRET, now: NOW, secure: false });
    expect(set).toMatch(/^scout_admin_flash=[^;]+; Max-Age=60; Path=\/admin; HttpOnly; SameSite=Strict$/);
    const request = withCookie(valueOf(set));
    expect(readFlash(request, { secret: SECRET, now: NOW })).toEqual({ present: true, flash: { message: 'Paused <b>', uid: 'YWRh' } });
    expect(readFlash(request, { secret: SECRET, now: later(60_000) })).toEqual({ present: true, flash: null });
    expect(clearedFlashCookie(false)).toMatch(/^scout_admin_flash=; Max-Age=0;/);
  });

  it('is ignored when forged, re-signed with another secret, or absent', () => {
    const forged = Buffer.from(JSON.stringify({ m: 'hi', u: 'x', x: NOW.getTime() + 1_000 })).toString('base64url');
    expect(readFlash(withCookie(`scout_admin_flash=${forged}.AAAA`), { secret: SECRET, now: NOW }).flash).toBeNull();
    const other = flashCookie({ message: 'hi', uid: null }, { secret: 'another-secret-0123456789', now: NOW, secure: false });
    expect(readFlash(withCookie(valueOf(other)), { secret: SECRET, now: NOW }).flash).toBeNull();
    expect(readFlash(new Request('http://localhost/admin'), { secret: SECRET, now: NOW })).toEqual({ present: false, flash: null });
  });

  it('and a session value never passes as a flash, nor the other way round', () => {
    const { value } = createSessionValue({ secret: SECRET, now: NOW });
    expect(readFlash(withCookie(`scout_admin_flash=${value}`), { secret: SECRET, now: NOW }).flash).toBeNull();
    const flash = valueOf(flashCookie({ message: 'm', uid: null }, { secret: SECRET, now: NOW, secure: false })).split('=')[1];
    expect(verifySessionValue(flash, { secret: SECRET, now: NOW }).ok).toBe(false);
  });
});
