import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  LINK_LIFETIME_DAYS,
  MAX_LINK_JOB_LENGTH,
  notAFitUrl,
  preferencesUrl,
  signLinkToken,
  MAX_LINK_TOKEN_LENGTH,
  sealSubscriberId,
  UNSUBSCRIBE_LINK_DAYS,
  unsubscribeUrl,
  verifyLinkToken,
  type LinkClaims,
  type LinkPurpose,
} from '../../lib/subscribers/link-token';
import { subscriberId } from '../../lib/subscribers/subscriber';

const SECRET = 'test-link-secret-0123456789';
const NOW = new Date('2026-11-30T06:00:00Z');
const inAnHour = Math.floor(NOW.getTime() / 1000) + 3_600;
const claims: LinkClaims = { uid: 'YWRhQGV4YW1wbGUuY29t', purpose: 'unsubscribe', exp: inAnHour };
const verify = (token: string | null | undefined, overrides: Partial<Parameters<typeof verifyLinkToken>[1]> = {}) =>
  verifyLinkToken(token, { secret: SECRET, purpose: 'unsubscribe', now: NOW, ...overrides });

/** Flips one character of a base64url string to another valid one. */
const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

describe('signLinkToken / verifyLinkToken', () => {
  it('round-trips the claims, with the link version every emailed link carries (0 unless given)', () => {
    expect(verify(signLinkToken(claims, SECRET))).toEqual({ ok: true, claims: { ...claims, linkVersion: 0 } });
    expect(verify(signLinkToken({ ...claims, linkVersion: 4 }, SECRET))).toEqual({ ok: true, claims: { ...claims, linkVersion: 4 } });
  });

  it('refuses a token whose body was changed', () => {
    const [, signature] = signLinkToken(claims, SECRET).split('.');
    const otherBody = Buffer.from(JSON.stringify({ ...claims, uid: 'Ym9iQGV4YW1wbGUuY29t' })).toString('base64url');
    expect(verify(`${otherBody}.${signature}`)).toEqual({ ok: false, reason: 'bad-signature' });
    const [body] = signLinkToken(claims, SECRET).split('.');
    expect(verify(`${flip(body, 3)}.${signature}`)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('refuses a token whose signature was changed or made with another secret', () => {
    const [body, signature] = signLinkToken(claims, SECRET).split('.');
    expect(verify(`${body}.${flip(signature, 0)}`)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verify(`${body}.${signature.slice(0, -1)}`)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verify(signLinkToken(claims, 'another-secret-0123456789'))).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('refuses a token at and after its expiry', () => {
    const token = signLinkToken(claims, SECRET);
    expect(verify(token, { now: new Date(inAnHour * 1000 - 1) }).ok).toBe(true);
    expect(verify(token, { now: new Date(inAnHour * 1000) })).toEqual({ ok: false, reason: 'expired' });
    expect(verify(signLinkToken({ ...claims, exp: inAnHour - 7_200 }, SECRET))).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a token made for another purpose', () => {
    expect(verify(signLinkToken({ ...claims, purpose: 'preferences' }, SECRET))).toEqual({ ok: false, reason: 'wrong-purpose' });
    expect(verify(signLinkToken(claims, SECRET), { purpose: 'confirm' })).toEqual({ ok: false, reason: 'wrong-purpose' });
  });

  it('refuses malformed tokens', () => {
    const [body, signature] = signLinkToken(claims, SECRET).split('.');
    // A correctly signed body that is not valid claims: a good signature alone is not enough.
    const signed = (raw: string) => {
      const b = Buffer.from(raw).toString('base64url');
      return `${b}.${createHmac('sha256', SECRET).update(b).digest('base64url')}`;
    };
    for (const token of [
      null,
      undefined,
      '',
      'nodot',
      `${body}.`,
      `.${signature}`,
      `${body}.${signature}.extra`,
      'x'.repeat(MAX_LINK_TOKEN_LENGTH + 1),
    ]) {
      expect(verify(token), String(token)).toEqual({ ok: false, reason: 'malformed' });
    }
    for (const raw of [
      'not json',
      '{"uid":"","purpose":"unsubscribe","exp":1}',
      '{"uid":"a","purpose":"delete","exp":1}',
      '{"uid":"a","purpose":"unsubscribe","exp":"soon"}',
    ]) {
      expect(verify(signed(raw)), raw).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('unsubscribeUrl carries a day-stable unsubscribe token that lasts about UNSUBSCRIBE_LINK_DAYS', () => {
    const morning = unsubscribeUrl({ appUrl: 'https://scout.example.com', uid: claims.uid, secret: SECRET, issuedAt: NOW });
    const evening = unsubscribeUrl({
      appUrl: 'https://scout.example.com',
      uid: claims.uid,
      secret: SECRET,
      issuedAt: new Date('2026-11-30T22:00:00Z'),
    });
    expect(evening).toBe(morning);
    const url = new URL(morning);
    expect(url.origin + url.pathname).toBe('https://scout.example.com/unsubscribe');
    const check = verify(url.searchParams.get('token'));
    expect(check).toMatchObject({ ok: true, claims: { uid: claims.uid, purpose: 'unsubscribe' } });
    const later = new Date(NOW.getTime() + (UNSUBSCRIBE_LINK_DAYS - 1) * 86_400_000);
    expect(verify(url.searchParams.get('token'), { now: later }).ok).toBe(true);
    expect(verify(url.searchParams.get('token'), { now: new Date(NOW.getTime() + (UNSUBSCRIBE_LINK_DAYS + 1) * 86_400_000) })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });
});

describe('not-a-fit links', () => {
  const APP = 'https://scout.example.com';
  const JOB = 'remoteok_AbCdEfGhIjKlMnOpQrSt';
  const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
  const notAFit = (jobId = JOB, issuedAt = NOW) => notAFitUrl({ appUrl: APP, uid: claims.uid, jobId, secret: SECRET, issuedAt });
  /** A body signed with the real secret, its subscriber sealed as Scout seals it: only the schema stands between it and the handler. */
  const signedRaw = ({ uid, ...raw }: Record<string, unknown>) => {
    const b = Buffer.from(JSON.stringify({ sub: sealSubscriberId(String(uid), SECRET), linkVersion: 0, ...raw })).toString('base64url');
    return `${b}.${createHmac('sha256', SECRET).update(b).digest('base64url')}`;
  };

  it('notAFitUrl names the posting, lasts a little longer than its posting is kept, and is stable for the UTC day', () => {
    const url = new URL(notAFit());
    expect(url.origin + url.pathname).toBe(`${APP}/not-a-fit`);
    expect(notAFit(JOB, new Date('2026-11-30T23:59:00Z'))).toBe(url.toString());
    const check = verify(url.searchParams.get('token'), { purpose: 'not-a-fit' });
    expect(check).toMatchObject({ ok: true, claims: { uid: claims.uid, purpose: 'not-a-fit', job: JOB } });
    const exp = check.ok ? check.claims.exp : 0;
    expect(exp % 86_400).toBe(0);
    expect(LINK_LIFETIME_DAYS['not-a-fit']).toBe(45);
    const days = (exp * 1000 - NOW.getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(44);
    expect(days).toBeLessThanOrEqual(45);
  });

  it('a not-a-fit token opens nothing else, and no other token opens a not-a-fit page', () => {
    const token = tokenOf(notAFit());
    for (const purpose of ['unsubscribe', 'preferences', 'confirm'] satisfies LinkPurpose[])
      expect(verify(token, { purpose }), purpose).toEqual({ ok: false, reason: 'wrong-purpose' });
    const others = [
      tokenOf(unsubscribeUrl({ appUrl: APP, uid: claims.uid, secret: SECRET, issuedAt: NOW })),
      tokenOf(preferencesUrl({ appUrl: APP, uid: claims.uid, secret: SECRET, issuedAt: NOW })),
    ];
    for (const other of others) expect(verify(other, { purpose: 'not-a-fit' })).toEqual({ ok: false, reason: 'wrong-purpose' });
  });

  it('a tampered posting id fails: the id is signed with the rest', () => {
    const [body, signature] = tokenOf(notAFit()).split('.');
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as LinkClaims;
    const otherBody = Buffer.from(JSON.stringify({ ...decoded, job: 'remoteok_SomeOtherPosting1234' })).toString('base64url');
    expect(verify(`${otherBody}.${signature}`, { purpose: 'not-a-fit' })).toEqual({ ok: false, reason: 'bad-signature' });
    // The same body under the signature of another posting's link is refused too.
    const [, otherSignature] = tokenOf(notAFit('remoteok_SomeOtherPosting1234')).split('.');
    expect(verify(`${body}.${otherSignature}`, { purpose: 'not-a-fit' })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('a posting id goes with not-a-fit links only, and is never empty or over MAX_LINK_JOB_LENGTH', () => {
    const exp = inAnHour;
    expect(verify(signedRaw({ uid: claims.uid, purpose: 'not-a-fit', exp }), { purpose: 'not-a-fit' })).toEqual({
      ok: false,
      reason: 'malformed',
    });
    for (const job of ['', 'j'.repeat(MAX_LINK_JOB_LENGTH + 1), 42])
      expect(verify(signedRaw({ uid: claims.uid, purpose: 'not-a-fit', exp, job }), { purpose: 'not-a-fit' }), String(job)).toEqual({
        ok: false,
        reason: 'malformed',
      });
    expect(verify(signedRaw({ ...claims, job: JOB }))).toEqual({ ok: false, reason: 'malformed' });
    expect(
      verify(signedRaw({ uid: claims.uid, purpose: 'not-a-fit', exp, job: 'j'.repeat(MAX_LINK_JOB_LENGTH) }), { purpose: 'not-a-fit' }).ok,
    ).toBe(true);
  });

  it('the longest uid with the longest posting id still makes a token the verifier accepts (under its MAX_LINK_TOKEN_LENGTH)', () => {
    const longestUid = subscriberId(`${'l'.repeat(64)}@${'d'.repeat(63)}.${'o'.repeat(63)}.${'m'.repeat(56)}.test`);
    const url = notAFitUrl({ appUrl: APP, uid: longestUid, jobId: 'j'.repeat(MAX_LINK_JOB_LENGTH), secret: SECRET, issuedAt: NOW });
    const token = tokenOf(url);
    expect(token.length).toBeLessThanOrEqual(MAX_LINK_TOKEN_LENGTH);
    expect(verify(token, { purpose: 'not-a-fit' })).toMatchObject({ ok: true, claims: { uid: longestUid } });
  });
});
