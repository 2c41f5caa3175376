import { describe, expect, it } from 'vitest';
import {
  archiveUrl,
  feedUrl,
  LINK_LIFETIME_DAYS,
  preferencesUrl,
  signLinkToken,
  verifyLinkToken,
  type LinkClaims,
} from '../../lib/subscribers/link-token';

const SECRET = 'test-link-secret-0123456789';
const NOW = new Date('2026-11-30T06:00:00Z');
const UID = 'YWRhQGV4YW1wbGUuY29t';
const link = { appUrl: 'https://scout.example.com', uid: UID, secret: SECRET, issuedAt: NOW };
const tokenOf = (url: string) => new URL(url).searchParams.get('token');
const inAnHour = Math.floor(NOW.getTime() / 1000) + 3_600;

describe('archive and feed links', () => {
  it('an archive link opens /archive, lives as long as the footers it sits in, and carries no version', () => {
    const url = archiveUrl(link);
    expect(url).toMatch(/^https:\/\/scout\.example\.com\/archive\?token=/);
    const check = verifyLinkToken(tokenOf(url), { secret: SECRET, purpose: 'archive', now: NOW });
    expect(check).toMatchObject({ ok: true, claims: { uid: UID, purpose: 'archive' } });
    expect(check.ok && check.claims.version).toBeUndefined();
    expect(LINK_LIFETIME_DAYS.archive).toBe(LINK_LIFETIME_DAYS.preferences);
  });

  it('a feed link opens /feed and carries the version it was signed with', () => {
    const url = feedUrl({ ...link, version: 3 });
    expect(url).toMatch(/^https:\/\/scout\.example\.com\/feed\?token=/);
    expect(verifyLinkToken(tokenOf(url), { secret: SECRET, purpose: 'feed', now: NOW })).toMatchObject({
      ok: true,
      claims: { uid: UID, purpose: 'feed', version: 3 },
    });
    // Version 0 (a subscriber who never revoked) is a version, not an absent one.
    expect(verifyLinkToken(tokenOf(feedUrl({ ...link, version: 0 })), { secret: SECRET, purpose: 'feed', now: NOW })).toMatchObject({
      ok: true,
      claims: { version: 0 },
    });
  });

  it('a feed URL keeps working for years in a reader, yet expires', () => {
    const token = tokenOf(feedUrl({ ...link, version: 0 }));
    const later = (days: number) => new Date(NOW.getTime() + days * 86_400_000);
    expect(verifyLinkToken(token, { secret: SECRET, purpose: 'feed', now: later(3 * 365) }).ok).toBe(true);
    expect(verifyLinkToken(token, { secret: SECRET, purpose: 'feed', now: later(LINK_LIFETIME_DAYS.feed + 1) })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('neither opens the other, nor is opened by a preferences link', () => {
    const archive = tokenOf(archiveUrl(link));
    const feed = tokenOf(feedUrl({ ...link, version: 0 }));
    const preferences = tokenOf(preferencesUrl(link));
    expect(verifyLinkToken(archive, { secret: SECRET, purpose: 'feed', now: NOW })).toEqual({ ok: false, reason: 'wrong-purpose' });
    expect(verifyLinkToken(feed, { secret: SECRET, purpose: 'archive', now: NOW })).toEqual({ ok: false, reason: 'wrong-purpose' });
    expect(verifyLinkToken(preferences, { secret: SECRET, purpose: 'archive', now: NOW })).toEqual({ ok: false, reason: 'wrong-purpose' });
    expect(verifyLinkToken(feed, { secret: SECRET, purpose: 'preferences', now: NOW })).toEqual({ ok: false, reason: 'wrong-purpose' });
  });

  it('a feed claim without a version, or a version on any other link, was not made by Scout', () => {
    const verify = (claims: LinkClaims, purpose: 'feed' | 'archive') =>
      verifyLinkToken(signLinkToken(claims, SECRET), { secret: SECRET, purpose, now: NOW });
    expect(verify({ uid: UID, purpose: 'feed', exp: inAnHour }, 'feed')).toEqual({ ok: false, reason: 'malformed' });
    expect(verify({ uid: UID, purpose: 'archive', exp: inAnHour, version: 1 }, 'archive')).toEqual({ ok: false, reason: 'malformed' });
    expect(verify({ uid: UID, purpose: 'feed', exp: inAnHour, version: -1 }, 'feed')).toEqual({ ok: false, reason: 'malformed' });
    expect(verify({ uid: UID, purpose: 'feed', exp: inAnHour, version: 1.5 }, 'feed')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('a version cannot be edited into a newer one: it is signed', () => {
    const [body, signature] = tokenOf(feedUrl({ ...link, version: 1 }))!.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const edited = Buffer.from(JSON.stringify({ ...claims, version: 2 })).toString('base64url');
    expect(verifyLinkToken(`${edited}.${signature}`, { secret: SECRET, purpose: 'feed', now: NOW })).toEqual({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('every email composed on one UTC day carries the same archive link (stored payloads stay identical)', () => {
    const evening = new Date('2026-11-30T22:59:00Z');
    expect(archiveUrl({ ...link, issuedAt: evening })).toBe(archiveUrl(link));
  });
});
