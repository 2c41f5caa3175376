import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { Timestamp, type DocumentData, type DocumentSnapshot, type Firestore, type UpdateData } from 'firebase-admin/firestore';
import { z } from 'zod';
import { COLLECTIONS } from '../store/collections';
import { takeOrAwait, writeHeld, type LeaseLook } from '../store/lease';
import { toDate } from '../store/timestamps';
import { FeedFetchError, FeedParseError } from './feed-errors';
import type { SourceHttp } from './source-http';

/** clientId, clientSecret, refreshToken of an upwork source's params: the app's OAuth2 credentials. */
export type UpworkCredentials = { clientId: string; clientSecret: string; refreshToken: string };

/** An access token as handed to a request, with the stored version it came from (to replace it after a 401). */
export type AccessToken = { value: string; version: number };

export type TokenStoreInput = {
  db: Firestore;
  /** The source id: one token per `upwork` source, at sourceTokens/{source}. */
  source: string;
  credentials: UpworkCredentials;
  tokenUrl: string;
  http: SourceHttp;
  /** How long a refresh may take before another run may take it over: longer than one token request can last. */
  leaseMs: number;
  /** How long a run waits for another run's refresh before it gives up for this run. */
  waitMs: number;
  /** The token the API just refused (401): a new one is needed, unless another run already stored one. */
  replacing?: number;
  /**
   * Real time, never the run's `?now=`: token lifetimes are the provider's clock, and the lease
   * fences an HTTP request that is really in flight. Tests may pass their own.
   */
  clock?: () => Date;
  /** The wait between two looks at another run's refresh: real time unless a test passes its own. */
  sleep?: (ms: number) => Promise<void>;
};

export const TOKEN_REJECTED_MESSAGE = "Upwork refresh token rejected: set a new refreshToken in the source's params (SOURCES)";
export const TOKEN_REFRESH_IN_PROGRESS_MESSAGE = 'Upwork token refresh in progress (another run holds the refresh lease)';
const CLIENT_REJECTED_MESSAGE = "Upwork client credentials rejected: check clientId and clientSecret in the source's params (SOURCES)";

/** Refreshed this long before it expires, so a token never dies between the check and the request. */
const EXPIRY_MARGIN_MS = 2 * 60_000;
const POLL_MS = 200;
/** Lost claims before giving up: each is another run's successful write, so a handful covers any overlap. */
const MAX_LOST_RACES = 10;
/**
 * RFC 6749 makes `expires_in` only recommended. Without it the token is taken to live 10 minutes,
 * the shortest lifetime Upwork's own support pages have named (the research notes in
 * scripts/sample-feed/fixtures/upwork/README.md).
 */
const DEFAULT_EXPIRES_IN_SECONDS = 600;

export const sourceTokensCollection = (db: Firestore) => db.collection(COLLECTIONS.sourceTokens);

/**
 * A valid Upwork access token for one source, refreshed by one run at a time.
 *
 * sourceTokens/{source} holds the newest token pair, sealed (AES-256-GCM under a key derived from
 * UPWORK_CLIENT_SECRET): Upwork rotates the refresh token on use, so the one stored is the only one
 * left that works, and two runs that both refreshed with it would leave one of them — and the
 * next run after it — with a dead token. So a refresh is claimed first: a lease written with a
 * precondition on the version read (or a create() for the first token), taken only when the token
 * is expired or expiring and no live lease exists. The holder asks the token endpoint and stores
 * the new pair guarded by the update time of its own lease write, so a holder whose lease was
 * taken over cannot overwrite the newer pair. The other runs poll, bounded, and use what the
 * holder stored, or give up for this run with a recorded error.
 *
 * The first token comes from UPWORK_REFRESH_TOKEN. When Upwork rejects the stored refresh token
 * (`invalid_grant`), UPWORK_REFRESH_TOKEN is tried instead only if it is not the one used last
 * (its HMAC is kept): an operator who set a new one is heard, an old one is not sent again.
 */
export async function upworkAccessToken(input: TokenStoreInput): Promise<AccessToken> {
  const clock = { now: input.clock ?? (() => new Date()), sleep: input.sleep ?? realSleep };
  const ref = sourceTokensCollection(input.db).doc(input.source);
  const keys = tokenKeys(input.credentials.clientSecret);
  const seedFingerprint = fingerprint(keys, input.credentials.refreshToken);
  const owner = randomUUID();
  const until = new Date(clock.now().getTime() + input.waitMs);

  for (;;) {
    const outcome = await takeOrAwait(ref, (snap) => lookAtToken(input, { snap, keys, seedFingerprint, owner, now: clock.now() }), {
      clock,
      pollMs: POLL_MS,
      until,
      maxLost: MAX_LOST_RACES,
    });
    if ('lost' in outcome)
      throw new FeedFetchError({ source: input.source, message: 'Upwork token store kept changing; try again', cause: outcome.cause });
    if ('held' in outcome) throw new FeedFetchError({ source: input.source, message: TOKEN_REFRESH_IN_PROGRESS_MESSAGE });
    if ('done' in outcome) {
      if (outcome.done.token) return outcome.done.token;
      throw new FeedFetchError({ source: input.source, message: TOKEN_REJECTED_MESSAGE });
    }
    // Only the lease holder gets here: one token request, whatever the number of runs.
    const token = await refreshHeld(input, { keys, seedFingerprint, version: outcome.taken, plan: outcome.as });
    if (token) return token;
  }
}

/** What a run found at sourceTokens/{source}, and the refresh it plans when it takes the lease. */
type TokenLook = {
  token?: AccessToken;
  stored: StoredToken;
  now: Date;
  refreshWith: { token: string; seed: boolean } | null;
};

function lookAtToken(
  input: TokenStoreInput,
  seen: { snap: DocumentSnapshot; keys: TokenKeys; seedFingerprint: string; owner: string; now: Date },
): LeaseLook<TokenLook> {
  const { snap, now } = seen;
  const stored = readStoredToken(snap.data(), seen.keys, input.source);
  if (
    stored.pair &&
    stored.expiresAt &&
    stored.version !== input.replacing &&
    stored.expiresAt.getTime() - EXPIRY_MARGIN_MS > now.getTime()
  )
    return { done: { token: { value: stored.pair.accessToken, version: stored.version }, stored, now, refreshWith: null } };
  if (stored.leaseUntil && stored.leaseUntil > now && stored.leaseOwner !== seen.owner) return { held: { stored, now, refreshWith: null } };
  const refreshWith =
    stored.pair && !stored.refreshRejected
      ? { token: stored.pair.refreshToken, seed: false }
      : stored.seedFingerprint !== seen.seedFingerprint
        ? { token: input.credentials.refreshToken, seed: true }
        : null;
  if (!refreshWith) return { done: { stored, now, refreshWith } };
  const lease = { provider: 'upwork', leaseOwner: seen.owner, leaseUntil: Timestamp.fromMillis(now.getTime() + input.leaseMs) };
  const take = snap.exists ? lease : { ...lease, version: 0, sealed: null, expiresAt: null, seedFingerprint: null, refreshRejected: false };
  return { take, as: { stored, now, refreshWith } };
}

/**
 * The lease holder's refresh: one token request, its answer stored fenced by the lease's version,
 * so a holder whose lease was taken over cannot overwrite the newer pair. Null: the stored refresh
 * token is dead and a new UPWORK_REFRESH_TOKEN is there to try, on the next pass.
 */
async function refreshHeld(
  input: TokenStoreInput,
  held: { keys: TokenKeys; seedFingerprint: string; version: Timestamp; plan: TokenLook },
): Promise<AccessToken | null> {
  const { stored, now } = held.plan;
  const refreshWith = held.plan.refreshWith!;
  const { seedFingerprint } = held;
  const ref = sourceTokensCollection(input.db).doc(input.source);
  const fenced = (data: UpdateData<DocumentData>) => writeHeld(ref, held.version, data);
  let answer: TokenAnswer;
  try {
    answer = await requestToken(input, refreshWith.token);
  } catch (error) {
    await fenced({ leaseOwner: null, leaseUntil: null, lastError: (error as Error).message, lastErrorAt: now });
    throw error;
  }

  if (answer.status === 'rejected') {
    await fenced({
      leaseOwner: null,
      leaseUntil: null,
      refreshRejected: true,
      lastError: TOKEN_REJECTED_MESSAGE,
      lastErrorAt: now,
      // A rejected first token leaves nothing behind but the fact that this one was tried.
      ...(refreshWith.seed ? { seedFingerprint, sealed: null, expiresAt: null } : {}),
    });
    // The stored token is dead; a new UPWORK_REFRESH_TOKEN is the way back, read on the next pass.
    if (!refreshWith.seed && stored.seedFingerprint !== seedFingerprint) return null;
    throw new FeedFetchError({ source: input.source, message: TOKEN_REJECTED_MESSAGE });
  }
  if (answer.status === 'client-rejected') {
    await fenced({ leaseOwner: null, leaseUntil: null, lastError: CLIENT_REJECTED_MESSAGE, lastErrorAt: now });
    throw new FeedFetchError({ source: input.source, message: CLIENT_REJECTED_MESSAGE });
  }

  const version = stored.version + 1;
  // Upwork's rotation is not documented: when the answer carries no new refresh token, the old one stays valid.
  const pair = { accessToken: answer.accessToken, refreshToken: answer.refreshToken ?? refreshWith.token };
  const written = await fenced({
    sealed: seal(held.keys, input.source, version, pair),
    version,
    expiresAt: Timestamp.fromMillis(now.getTime() + answer.expiresInSeconds * 1000),
    leaseOwner: null,
    leaseUntil: null,
    refreshRejected: false,
    refreshedAt: now,
    lastError: null,
    ...(refreshWith.seed ? { seedFingerprint } : {}),
  });
  // Our lease ran out during the request and another run took it: its pair, not ours, is the one kept.
  if (!written) throw new FeedFetchError({ source: input.source, message: 'Upwork token refresh outlived its lease; try again' });
  return { value: pair.accessToken, version };
}

// --- the stored document ---

type TokenPair = { accessToken: string; refreshToken: string };

type StoredToken = {
  version: number;
  /** Null when absent, or when it does not decrypt (UPWORK_CLIENT_SECRET changed, or the document was tampered with). */
  pair: TokenPair | null;
  expiresAt: Date | null;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  seedFingerprint: string | null;
  refreshRejected: boolean;
};

function readStoredToken(data: DocumentData | undefined, keys: TokenKeys, source: string): StoredToken {
  const version = typeof data?.version === 'number' ? data.version : 0;
  return {
    version,
    pair: typeof data?.sealed === 'string' ? unseal(keys, source, version, data.sealed) : null,
    expiresAt: toDate(data?.expiresAt),
    leaseOwner: typeof data?.leaseOwner === 'string' ? data.leaseOwner : null,
    leaseUntil: toDate(data?.leaseUntil),
    seedFingerprint: typeof data?.seedFingerprint === 'string' ? data.seedFingerprint : null,
    refreshRejected: data?.refreshRejected === true,
  };
}

// --- encryption at rest ---

type TokenKeys = { seal: Buffer; fingerprint: Buffer };

const SEALED_PREFIX = 'v1';

/** Two keys from one secret (HKDF-SHA256, RFC 5869), one per purpose, so neither use weakens the other. */
function tokenKeys(clientSecret: string): TokenKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', clientSecret, 'scout/sourceTokens', info, 32));
  return { seal: derive('upwork-token-pair/aes-256-gcm/v1'), fingerprint: derive('upwork-seed-fingerprint/hmac-sha256/v1') };
}

/** The document and version are the associated data: a sealed pair copied to another source or rolled back to an older version does not open. */
function associatedData(source: string, version: number): Buffer {
  return Buffer.from(`sourceTokens/${source}#${version}`, 'utf8');
}

function seal(keys: TokenKeys, source: string, version: number, pair: TokenPair): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.seal, iv);
  cipher.setAAD(associatedData(source, version));
  const data = Buffer.concat([cipher.update(JSON.stringify(pair), 'utf8'), cipher.final()]);
  return [SEALED_PREFIX, iv, cipher.getAuthTag(), data]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

function unseal(keys: TokenKeys, source: string, version: number, sealed: string): TokenPair | null {
  const [prefix, iv, tag, data] = sealed.split('.');
  if (prefix !== SEALED_PREFIX || !iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keys.seal, Buffer.from(iv, 'base64url'));
    decipher.setAAD(associatedData(source, version));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    const pair = JSON.parse(text) as Partial<TokenPair>;
    return typeof pair.accessToken === 'string' && typeof pair.refreshToken === 'string'
      ? { accessToken: pair.accessToken, refreshToken: pair.refreshToken }
      : null;
  } catch {
    return null;
  }
}

function fingerprint(keys: TokenKeys, refreshToken: string): string {
  return createHmac('sha256', keys.fingerprint).update(refreshToken, 'utf8').digest('base64url');
}

/** What a test (or an operator's script) needs to read a stored pair: the same derivation, never a stored key. */
export function openStoredToken(data: DocumentData | undefined, source: string, clientSecret: string): TokenPair | null {
  return readStoredToken(data, tokenKeys(clientSecret), source).pair;
}

// --- the token endpoint (RFC 6749 §6, as Upwork's own client libraries call it) ---

type TokenAnswer =
  | { status: 'ok'; accessToken: string; refreshToken: string | null; expiresInSeconds: number }
  | { status: 'rejected' }
  | { status: 'client-rejected' };

const tokenResponse = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).nullish(),
  // RFC 6749 §7.1: the type is case-insensitive; only a bearer token can be used as one.
  token_type: z
    .string()
    .refine((type) => type.toLowerCase() === 'bearer')
    .nullish(),
  expires_in: z.coerce.number().positive().nullish(),
});

const tokenError = z.object({ error: z.string() });

async function requestToken(input: TokenStoreInput, refreshToken: string): Promise<TokenAnswer> {
  const { clientId, clientSecret } = input.credentials;
  const answer = await input.http.request(input.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    // Upwork's Python library sends the client id and secret in the body of the refresh grant.
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
    readErrorBodyOf: [400, 401],
  });
  if (answer.status !== 'ok') throw new FeedFetchError({ source: input.source, message: 'Upwork token endpoint answered 304' });
  const body = parseJson(answer.text);
  if (answer.httpStatus === 400 || answer.httpStatus === 401) {
    // RFC 6749 §5.2: the error code is in the body; a 401 is always the client's credentials.
    const code = tokenError.safeParse(body).data?.error;
    if (code === 'invalid_grant') return { status: 'rejected' };
    if (code === 'invalid_client' || answer.httpStatus === 401) return { status: 'client-rejected' };
    const named = code && /^[a-z_]{1,40}$/.test(code) ? code : 'unknown error';
    throw new FeedFetchError({
      source: input.source,
      status: answer.httpStatus,
      message: `Upwork token endpoint refused the refresh: ${named}`,
    });
  }
  const parsed = tokenResponse.safeParse(body);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.map(String).join('.') || '(root)';
    throw new FeedParseError(input.source, `Upwork token answer: ${field} is missing or invalid`);
  }
  return {
    status: 'ok',
    accessToken: parsed.data.access_token,
    refreshToken: parsed.data.refresh_token ?? null,
    expiresInSeconds: parsed.data.expires_in ?? DEFAULT_EXPIRES_IN_SECONDS,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The real wait between two looks at another run's refresh; tests pass their own `sleep`. */
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
