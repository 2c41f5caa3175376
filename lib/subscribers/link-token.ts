import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Signed links are the subscriber's only credential: HMAC(LINK_SECRET) over the subscriber id,
 * what the link is for, and when it stops working. A token for one purpose opens nothing else.
 * A confirmation link also carries the nonce of the signup it confirms (`signupNonce` on the
 * subscriber), so it cannot confirm a later signup of the same address. A "not a fit" link also
 * carries the posting it is about (`job`, a jobs/ id): that id is signed too, so a link for one
 * posting cannot be edited into feedback on another. A private feed link also carries the
 * subscriber's `feedTokenVersion` (`version`): revoking the feed URL bumps it on the subscriber,
 * and every link signed with an older one opens nothing (lib/archive/open-private-link.ts).
 */
export const LINK_PURPOSES = ['unsubscribe', 'preferences', 'confirm', 'not-a-fit', 'archive', 'feed'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/** Longest posting id a link carries: jobs/ ids are `{source ≤ 64}_{20}`, so this is room, not a cut. */
export const MAX_LINK_JOB_LENGTH = 300;

const claimsSchema = z
  .object({
    uid: z.string().min(1),
    purpose: z.enum(LINK_PURPOSES),
    exp: z.number().int(),
    nonce: z.string().min(1).max(100).optional(),
    job: z.string().min(1).max(MAX_LINK_JOB_LENGTH).optional(),
    version: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  })
  // A posting id belongs to a "not a fit" link and to no other: one without it, or another link with one, was not made by Scout.
  .refine((claims) => (claims.purpose === 'not-a-fit') === (claims.job !== undefined), { error: 'job goes with not-a-fit only' })
  // Likewise a feed version: a feed link without one could never be revoked.
  .refine((claims) => (claims.purpose === 'feed') === (claims.version !== undefined), { error: 'version goes with feed only' });
export type LinkClaims = z.infer<typeof claimsSchema>;

export type TokenCheck =
  { ok: true; claims: LinkClaims } | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' | 'wrong-purpose' };

const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('base64url');

export function signLinkToken(claims: LinkClaims, secret: string): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${sign(body, secret)}`;
}

export function verifyLinkToken(token: string | null | undefined, input: { secret: string; purpose: LinkPurpose; now: Date }): TokenCheck {
  if (!token || token.length > 1_000) return { ok: false, reason: 'malformed' };
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(sign(body, input.secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'bad-signature' };
  let claims: LinkClaims;
  try {
    claims = claimsSchema.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (claims.purpose !== input.purpose) return { ok: false, reason: 'wrong-purpose' };
  if (claims.exp * 1000 <= input.now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

/**
 * How long each kind of link works. Unsubscribe links must keep working in old emails (RFC 8058
 * mail clients cache them); preference links live as long, since they sit in the same footers;
 * a confirmation link is short-lived, as a fresh one is one signup away. A "not a fit" link sits
 * beside each posting of an email, read whenever the subscriber gets round to it: as long as the footers.
 * The archive link sits in the same footers. A private feed URL is pasted into a feed reader once and
 * polled for years, with no email to bring a fresh one: it lives ten years, and what ends it
 * earlier is the subscriber revoking it (the `version` claim), or unsubscribing.
 */
export const LINK_LIFETIME_DAYS: Record<LinkPurpose, number> = {
  unsubscribe: 400,
  preferences: 400,
  confirm: 2,
  'not-a-fit': 400,
  archive: 400,
  feed: 3650,
};
export const UNSUBSCRIBE_LINK_DAYS = LINK_LIFETIME_DAYS.unsubscribe;

const LINK_PATHS: Record<LinkPurpose, string> = {
  unsubscribe: '/unsubscribe',
  preferences: '/preferences',
  confirm: '/confirm',
  'not-a-fit': '/not-a-fit',
  archive: '/archive',
  feed: '/feed',
};

/**
 * A signed link to one of the subscriber's pages. Long-lived links expire at a whole UTC day, so
 * every email composed that day carries the same link (and a stored email payload stays identical).
 */
export function signedLinkUrl(input: {
  purpose: LinkPurpose;
  appUrl: string;
  uid: string;
  secret: string;
  issuedAt: Date;
  nonce?: string;
  job?: string;
  version?: number;
}): string {
  const exp = Math.floor(input.issuedAt.getTime() / 1000) + LINK_LIFETIME_DAYS[input.purpose] * 86_400;
  const rounded = input.purpose === 'confirm' ? exp : exp - (exp % 86_400);
  const claims: LinkClaims = {
    uid: input.uid,
    purpose: input.purpose,
    exp: rounded,
    ...(input.nonce ? { nonce: input.nonce } : {}),
    ...(input.job ? { job: input.job } : {}),
    ...(input.version !== undefined ? { version: input.version } : {}),
  };
  const token = signLinkToken(claims, input.secret);
  return `${input.appUrl}${LINK_PATHS[input.purpose]}?token=${token}`;
}

export const unsubscribeUrl = (input: { appUrl: string; uid: string; secret: string; issuedAt: Date }) =>
  signedLinkUrl({ ...input, purpose: 'unsubscribe' });
export const preferencesUrl = (input: { appUrl: string; uid: string; secret: string; issuedAt: Date }) =>
  signedLinkUrl({ ...input, purpose: 'preferences' });
/** The link in a confirmation email: it names the signup (its nonce) it confirms. */
export const confirmUrl = (input: { appUrl: string; uid: string; secret: string; issuedAt: Date; nonce: string }) =>
  signedLinkUrl({ ...input, purpose: 'confirm' });
/** The "Not a fit" link beside one posting of an email: it names the posting (signed), and GET only asks. */
export const notAFitUrl = (input: { appUrl: string; uid: string; jobId: string; secret: string; issuedAt: Date }) =>
  signedLinkUrl({
    appUrl: input.appUrl,
    uid: input.uid,
    secret: input.secret,
    issuedAt: input.issuedAt,
    purpose: 'not-a-fit',
    job: input.jobId,
  });
/** The "Your archive" link in every email's footer: the postings Scout sent in the last 30 days. */
export const archiveUrl = (input: { appUrl: string; uid: string; secret: string; issuedAt: Date }) =>
  signedLinkUrl({ ...input, purpose: 'archive' });
/** The private feed's address, signed with the subscriber's current `feedTokenVersion`: bumping it revokes this URL. */
export const feedUrl = (input: { appUrl: string; uid: string; secret: string; issuedAt: Date; version: number }) =>
  signedLinkUrl({ ...input, purpose: 'feed' });
