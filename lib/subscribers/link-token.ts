import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Signed links are the subscriber's only credential: HMAC(LINK_SECRET) over the subscriber, what
 * the link is for, and when it stops working. A token for one purpose opens nothing else.
 *
 * The subscriber travels sealed (`sub`): the users/ id is base64url of the address, so a token
 * that carried it in clear handed the address to anyone who saw the URL — a feed reader, a proxy
 * log. The seal is AES-256-GCM under a key derived from LINK_SECRET by HKDF, with the IV an HMAC
 * of the id (a synthetic IV): the same subscriber always seals to the same text, so every email
 * composed on one day still carries the same link, and no lookup collection is needed to open it.
 *
 * Every emailed link also carries the subscriber's `linkVersion` (absent on users/ = 0): an
 * unsubscribe, a re-signup and "Revoke my links" bump it, and a link of an older version opens
 * nothing (`isCurrentLink`), except an unsubscribe, which still unsubscribes and shows nothing.
 * A confirmation link instead carries the nonce of the signup it confirms (`signupNonce` on the
 * subscriber). A "not a fit" link also carries the posting it is about (`job`, a jobs/ id), signed,
 * so it cannot be edited into feedback on another. A private feed link also carries the
 * subscriber's `feedTokenVersion` (`version`): revoking the feed URL bumps it
 * (lib/archive/open-private-link.ts). An undo link (shown once, on the page of the unsubscribe it
 * undoes, never emailed) carries the `linkVersion` that unsubscribe wrote, so it undoes that
 * unsubscribe and no other (lib/subscriptions/undo-unsubscribe.ts).
 */
export const LINK_PURPOSES = ['unsubscribe', 'preferences', 'confirm', 'not-a-fit', 'archive', 'feed', 'undo'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/** Longest posting id a link carries: jobs/ ids are `{source ≤ 64}_{20}`, so this is room, not a cut. */
export const MAX_LINK_JOB_LENGTH = 300;

const versionSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const wireSchema = z
  .object({
    /** The sealed subscriber id; a link made before the seal carries `uid` in clear instead. */
    sub: z.string().min(1).max(400).optional(),
    uid: z.string().min(1).optional(),
    purpose: z.enum(LINK_PURPOSES),
    exp: z.number().int(),
    nonce: z.string().min(1).max(100).optional(),
    job: z.string().min(1).max(MAX_LINK_JOB_LENGTH).optional(),
    version: versionSchema.optional(),
    linkVersion: versionSchema.optional(),
  })
  .refine((claims) => (claims.sub === undefined) !== (claims.uid === undefined), { error: 'one subscriber, sealed or not' })
  // A posting id belongs to a "not a fit" link and to no other: one without it, or another link with one, was not made by Scout.
  .refine((claims) => (claims.purpose === 'not-a-fit') === (claims.job !== undefined), { error: 'job goes with not-a-fit only' })
  // Likewise a feed version: a feed link without one could never be revoked.
  .refine((claims) => (claims.purpose === 'feed') === (claims.version !== undefined), { error: 'version goes with feed only' })
  // And a link version on every sealed link but a confirmation (its signup nonce does that job).
  .refine((claims) => claims.uid !== undefined || (claims.purpose === 'confirm') === (claims.linkVersion === undefined), {
    error: 'linkVersion goes with every emailed link but confirm',
  });

/**
 * What a link says, opened. `legacy`: made before subscribers were sealed (the address in clear);
 * such a link still unsubscribes and opens nothing else.
 */
export type LinkClaims = {
  uid: string;
  purpose: LinkPurpose;
  exp: number;
  nonce?: string;
  job?: string;
  version?: number;
  linkVersion?: number;
  legacy?: true;
};

export type TokenCheck =
  { ok: true; claims: LinkClaims } | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' | 'wrong-purpose' };

const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('base64url');

type SealKeys = { seal: Buffer; iv: Buffer };
// Derived once per secret, not per link: a digest flush signs a dozen links for each of thousands of subscribers.
let cachedKeys: { secret: string; keys: SealKeys } | null = null;
function sealKeysOf(secret: string): SealKeys {
  if (cachedKeys?.secret === secret) return cachedKeys.keys;
  const derived = Buffer.from(hkdfSync('sha256', secret, 'scout link token', 'sealed subscriber id', 64));
  const keys = { seal: derived.subarray(0, 32), iv: derived.subarray(32) };
  cachedKeys = { secret, keys };
  return keys;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The first sealed byte says how the id was packed: users/ ids are base64url, sealed as the bytes they spell (a quarter shorter). */
const PACKED_BASE64URL = 1;
const PACKED_TEXT = 0;

function packId(uid: string): Buffer {
  const raw = Buffer.from(uid, 'base64url');
  return raw.toString('base64url') === uid
    ? Buffer.concat([Buffer.of(PACKED_BASE64URL), raw])
    : Buffer.concat([Buffer.of(PACKED_TEXT), Buffer.from(uid, 'utf8')]);
}
const unpackId = (packed: Buffer) =>
  packed[0] === PACKED_BASE64URL ? packed.subarray(1).toString('base64url') : packed.subarray(1).toString('utf8');

/**
 * Longest token the verifier reads: the longest sealed id (a 254-character address) with the
 * longest posting id makes about 1,060; anything much longer was not made by Scout.
 */
export const MAX_LINK_TOKEN_LENGTH = 1_200;

/** The subscriber id as a link carries it: opaque, and the same for the same subscriber under one secret. */
export function sealSubscriberId(uid: string, secret: string): string {
  const keys = sealKeysOf(secret);
  const iv = createHmac('sha256', keys.iv).update(uid).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keys.seal, iv);
  const sealed = Buffer.concat([cipher.update(packId(uid)), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The id a sealed one stands for; null when it was not sealed under this secret. */
export function openSubscriberId(sealed: string, secret: string): string | null {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES + 1) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKeysOf(secret).seal, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return unpackId(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]));
  } catch {
    return null;
  }
}

export function signLinkToken(claims: LinkClaims, secret: string): string {
  const { uid, legacy: _legacy, ...rest } = claims;
  const linkVersion = claims.purpose === 'confirm' ? undefined : (claims.linkVersion ?? 0);
  const wire = { sub: sealSubscriberId(uid, secret), ...rest, ...(linkVersion !== undefined ? { linkVersion } : {}) };
  const body = Buffer.from(JSON.stringify(wire)).toString('base64url');
  return `${body}.${sign(body, secret)}`;
}

export function verifyLinkToken(token: string | null | undefined, input: { secret: string; purpose: LinkPurpose; now: Date }): TokenCheck {
  if (!token || token.length > MAX_LINK_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(sign(body, input.secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'bad-signature' };
  let wire: z.infer<typeof wireSchema>;
  try {
    wire = wireSchema.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (wire.purpose !== input.purpose) return { ok: false, reason: 'wrong-purpose' };
  if (wire.exp * 1000 <= input.now.getTime()) return { ok: false, reason: 'expired' };
  const { sub, uid: clear, ...rest } = wire;
  if (clear !== undefined) {
    // A link from before the seal names its subscriber's address to whoever holds it: it may still
    // unsubscribe (harmless, and the law wants old emails' opt-out to work), and opens nothing else.
    if (wire.purpose !== 'unsubscribe') return { ok: false, reason: 'expired' };
    return { ok: true, claims: { ...rest, uid: clear, legacy: true } };
  }
  const uid = openSubscriberId(sub!, input.secret);
  if (!uid) return { ok: false, reason: 'malformed' };
  return { ok: true, claims: { ...rest, uid } };
}

/**
 * Whether a link was signed for the subscriber's current links: the version it carries is theirs
 * now. An older one was sent before an unsubscribe, a re-signup or "Revoke my links", and opens nothing.
 */
export const isCurrentLink = (claims: LinkClaims, subscriber: { linkVersion?: number }) =>
  !claims.legacy && (claims.linkVersion ?? 0) === (subscriber.linkVersion ?? 0);

/**
 * How long each kind of link works: the shortest that still serves its reader (the table and the
 * rules cited are in docs/security.md). An unsubscribe link must keep working in old emails: mail
 * clients cache the RFC 8058 one-click URL, and CAN-SPAM wants an opt-out to work for 30 days after
 * sending at the least; as it can only unsubscribe and reveals nothing on an old version, it lives
 * as long as anyone keeps an email. A preferences or archive link shows a profile and a feed URL:
 * 90 days, as every email brings a fresh one and the signup form mails one on request. A "not a fit"
 * link records nothing once its posting is gone (RETENTION_DAYS, 30 by default, at most 365 but
 * rarely raised): 45 days covers the default with room. A confirmation link is short-lived, as a
 * fresh one is one signup away. A private feed URL is pasted into a feed reader once and polled for
 * years, with no email to bring a fresh one: ten years, ended earlier by a revoke (`version`,
 * `linkVersion`) or an unsubscribe. An undo link lives a week from the unsubscribe it undoes: long
 * enough to notice a slip, short enough that a page left open is not a standing way back in.
 */
export const LINK_LIFETIME_DAYS: Record<LinkPurpose, number> = {
  unsubscribe: 400,
  preferences: 90,
  confirm: 2,
  'not-a-fit': 45,
  archive: 90,
  feed: 3650,
  undo: 7,
};
export const UNSUBSCRIBE_LINK_DAYS = LINK_LIFETIME_DAYS.unsubscribe;

const LINK_PATHS: Record<LinkPurpose, string> = {
  unsubscribe: '/unsubscribe',
  preferences: '/preferences',
  confirm: '/confirm',
  'not-a-fit': '/not-a-fit',
  archive: '/archive',
  feed: '/feed',
  undo: '/unsubscribe/undo',
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
  /** The subscriber's `linkVersion`; absent = 0, as on users/. Not for a confirmation link. */
  linkVersion?: number;
}): string {
  const exp = Math.floor(input.issuedAt.getTime() / 1000) + LINK_LIFETIME_DAYS[input.purpose] * 86_400;
  // Short-lived links end exactly their lifetime after issue; the others at a whole UTC day.
  const rounded = input.purpose === 'confirm' || input.purpose === 'undo' ? exp : exp - (exp % 86_400);
  const claims: LinkClaims = {
    uid: input.uid,
    purpose: input.purpose,
    exp: rounded,
    ...(input.nonce ? { nonce: input.nonce } : {}),
    ...(input.job ? { job: input.job } : {}),
    ...(input.version !== undefined ? { version: input.version } : {}),
    ...(input.linkVersion !== undefined ? { linkVersion: input.linkVersion } : {}),
  };
  const token = signLinkToken(claims, input.secret);
  return `${input.appUrl}${LINK_PATHS[input.purpose]}?token=${token}`;
}

/** What every emailed link is signed from: whose, with which of their link versions, on which day. */
export type SubscriberLink = { appUrl: string; uid: string; secret: string; issuedAt: Date; linkVersion?: number };

export const unsubscribeUrl = (input: SubscriberLink) => signedLinkUrl({ ...input, purpose: 'unsubscribe' });
export const preferencesUrl = (input: SubscriberLink) => signedLinkUrl({ ...input, purpose: 'preferences' });
/** The link in a confirmation email: it names the signup (its nonce) it confirms. */
export const confirmUrl = (input: { appUrl: string; uid: string; secret: string; issuedAt: Date; nonce: string }) =>
  signedLinkUrl({ ...input, purpose: 'confirm' });
/** The "Not a fit" link beside one posting of an email: it names the posting (signed), and GET only asks. */
export const notAFitUrl = (input: SubscriberLink & { jobId: string }) =>
  signedLinkUrl({
    appUrl: input.appUrl,
    uid: input.uid,
    secret: input.secret,
    issuedAt: input.issuedAt,
    linkVersion: input.linkVersion,
    purpose: 'not-a-fit',
    job: input.jobId,
  });
/** The "Your archive" link in every email's footer: the postings Scout sent in the last 30 days. */
export const archiveUrl = (input: SubscriberLink) => signedLinkUrl({ ...input, purpose: 'archive' });
/** "Undo" on the page of an unsubscribe: signed with the link version that unsubscribe wrote. */
export const undoUnsubscribeUrl = (input: SubscriberLink & { linkVersion: number }) => signedLinkUrl({ ...input, purpose: 'undo' });
/** The private feed's address, signed with the subscriber's current `feedTokenVersion`: bumping it revokes this URL. */
export const feedUrl = (input: SubscriberLink & { version: number }) => signedLinkUrl({ ...input, purpose: 'feed' });
