import { randomBytes } from 'node:crypto';
import type { FeedHandler, HandledRequest, ServedFeed } from '../sample-feed/served-feed';

/** Upwork's paths, as its own client libraries name them (scripts/sample-feed/fixtures/upwork/README.md). */
export const UPWORK_FAKE_TOKEN_PATH = '/api/v3/oauth2/token';
export const UPWORK_FAKE_GRAPHQL_PATH = '/graphql';

export type UpworkFakeOptions = {
  clientId: string;
  clientSecret: string;
  /** The refresh token the operator was given: valid once, like every refresh token after it. */
  refreshToken: string;
  /** The search answer (the fixture), or a function for one that changes. */
  searchAnswer: string | (() => string);
  /** `expires_in` of every access token issued; 86,400 s is the lifetime the research found quoted. */
  accessTokenTtlSeconds?: number;
  /** false: answer refresh grants without a new refresh token (Upwork's rotation is undocumented). */
  rotateRefreshTokens?: boolean;
  clock?: () => Date;
};

export type UpworkFake = {
  routes: Record<string, FeedHandler>;
  /** Puts the fake's two routes on a running sample server (replacing what was there). */
  install(server: { setHandler(path: string, handler: FeedHandler): void }): void;
  /** Token requests so far (every grant, answered or refused). */
  tokenRequests(): number;
  /** Refresh grants refused with invalid_grant. */
  invalidGrants(): number;
  /** GraphQL requests so far, with the variables each sent. */
  searches(): { authorized: boolean; variables: unknown }[];
  /** The refresh token the fake would accept now (the newest it issued), or null once rejected ones are all it knows. */
  currentRefreshToken(): string | null;
  /** Every access token issued so far stops working: the next search answers 401. */
  expireAccessTokens(): void;
};

/**
 * A local stand-in for Upwork's OAuth2 token endpoint and GraphQL job search, enough to test the
 * token flow: the refresh grant (RFC 6749 §6) with the client id and secret in the form body, a
 * refresh token that works once and is replaced by a new one (so two clients refreshing with the
 * same token leave one of them with `invalid_grant`), bearer tokens that expire (401), and the
 * search answer served to a valid bearer only.
 */
export function createUpworkFake(options: UpworkFakeOptions): UpworkFake {
  const clock = options.clock ?? (() => new Date());
  const ttlSeconds = options.accessTokenTtlSeconds ?? 86_400;
  const refreshTokens = new Set([options.refreshToken]);
  let newestRefreshToken: string | null = options.refreshToken;
  const accessTokens = new Map<string, number>();
  let tokenRequests = 0;
  let invalidGrants = 0;
  let issued = 0;
  const searches: { authorized: boolean; variables: unknown }[] = [];

  const json = (status: number, body: unknown, headers: Record<string, string> = {}): ServedFeed => ({
    status,
    body: JSON.stringify(body),
    contentType: 'application/json; charset=utf-8',
    headers: { 'cache-control': 'no-store', ...headers },
  });

  const token: FeedHandler = (request: HandledRequest) => {
    if (request.method !== 'POST') return json(405, { error: 'invalid_request' }, { allow: 'POST' });
    tokenRequests++;
    const form = new URLSearchParams(request.body);
    if (form.get('client_id') !== options.clientId || form.get('client_secret') !== options.clientSecret)
      return json(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
    if (form.get('grant_type') !== 'refresh_token') return json(400, { error: 'unsupported_grant_type' });
    const presented = form.get('refresh_token') ?? '';
    if (!refreshTokens.has(presented)) {
      invalidGrants++;
      return json(400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or was already used' });
    }
    issued++;
    const accessToken = `oauth2v2_fake_access_${issued}_${randomBytes(6).toString('hex')}`;
    accessTokens.set(accessToken, clock().getTime() + ttlSeconds * 1000);
    const rotate = options.rotateRefreshTokens ?? true;
    if (rotate) {
      refreshTokens.delete(presented);
      newestRefreshToken = `oauth2v2_fake_refresh_${issued}_${randomBytes(6).toString('hex')}`;
      refreshTokens.add(newestRefreshToken);
    }
    return json(200, {
      access_token: accessToken,
      ...(rotate ? { refresh_token: newestRefreshToken } : {}),
      token_type: 'bearer',
      expires_in: ttlSeconds,
    });
  };

  const graphql: FeedHandler = (request: HandledRequest) => {
    if (request.method !== 'POST') return json(405, { errors: [{ message: 'POST only' }] }, { allow: 'POST' });
    const bearer = /^Bearer (\S+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    const expiresAt = bearer ? accessTokens.get(bearer) : undefined;
    const authorized = expiresAt !== undefined && expiresAt > clock().getTime();
    let body: { query?: unknown; variables?: unknown } = {};
    try {
      body = JSON.parse(request.body) as typeof body;
    } catch {
      // Answered below as a query that is not the search.
    }
    searches.push({ authorized, variables: body.variables ?? null });
    if (!authorized) return json(401, { message: 'Unauthorized' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    if (typeof body.query !== 'string' || !body.query.includes('marketplaceJobPostingsSearch'))
      return json(200, { data: null, errors: [{ message: 'Unknown query', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    const answer = typeof options.searchAnswer === 'function' ? options.searchAnswer() : options.searchAnswer;
    return { body: answer, contentType: 'application/json; charset=utf-8' };
  };

  const routes = { [UPWORK_FAKE_TOKEN_PATH]: token, [UPWORK_FAKE_GRAPHQL_PATH]: graphql };
  return {
    routes,
    install(server) {
      for (const [path, handler] of Object.entries(routes)) server.setHandler(path, handler);
    },
    tokenRequests: () => tokenRequests,
    invalidGrants: () => invalidGrants,
    searches: () => searches.map((search) => ({ ...search })),
    currentRefreshToken: () => (newestRefreshToken && refreshTokens.has(newestRefreshToken) ? newestRefreshToken : null),
    expireAccessTokens() {
      for (const accessToken of accessTokens.keys()) accessTokens.set(accessToken, 0);
    },
  };
}
