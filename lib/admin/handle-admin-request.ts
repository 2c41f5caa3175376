import type { AdminDeps } from './admin-deps';
import { configuredSources } from '../feeds/source-list';
import { adapterFor } from '../feeds/source-kinds';
import { aiSettingsOf } from '../ops/ai-verdicts-state';
import { readDashboard } from '../ops/read-dashboard';
import { readSubscriberHistory } from '../ops/read-subscriber-history';
import { subscriberId } from '../subscribers/subscriber';
import { isSameOrigin } from '../http/same-origin';
import { pageHandler } from '../http/page-handler';
import { adminRedirect, readAdminForm } from './admin-http';
import { adminRefusedPage, adminServerErrorPage } from './admin-error-pages';
import { dashboardPage } from './dashboard-page';
import { loginPage } from './login-page';
import { subscriberPage } from './subscriber-page';
import { clearedFlashCookie, readFlash } from './flash';
import { closeAdminSession, isAdminSessionOpen, openAdminSession } from './admin-sessions';
import { admitLogin, logLogin, refuseWrongSecret } from './login-gate';
import {
  clearedSessionCookie,
  isAdminSecret,
  isSecureApp,
  readCookie,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  sessionCookie,
  verifySessionValue,
} from './session';
import { SIGNUP_CONFIRMATIONS_PER_HOUR } from '../http/rate-limit';

export type Gate = { ok: true } | { ok: false; response: Response };

/**
 * The operator's session, checked before anything is read or written: the cookie's signature and
 * expiry, then (one read) that the server still holds the session. Without one, the answer is the
 * login form and nothing else: 200 for a GET (the form is the page), 401 for a POST. A cookie that
 * did not pass (tampered, expired, signed by an old secret, logged out) is cleared.
 */
export async function requireSession(request: Request, deps: AdminDeps): Promise<Gate> {
  const value = readCookie(request, SESSION_COOKIE);
  const check = verifySessionValue(value, { secret: deps.config.ADMIN_SECRET, now: deps.now });
  const open = check.ok && (await isAdminSessionOpen(deps.db, { sessionId: check.sessionId, now: deps.now }));
  if (open) return { ok: true };
  await request.body?.cancel().catch(() => undefined);
  const cookies = value ? [clearedSessionCookie(isSecureApp(deps.config.APP_URL))] : [];
  const ended = check.ok || check.reason === 'expired';
  return {
    ok: false,
    response: await loginPage({
      status: request.method === 'GET' || request.method === 'HEAD' ? 200 : 401,
      message: ended ? 'Your session has ended. Log in again.' : undefined,
      cookies,
    }),
  };
}

/** Every POST: a session, then the origin (CSRF, on top of the cookie's SameSite=Strict), in that order; nothing is read before both pass. */
export async function requireSessionAndOrigin(request: Request, deps: AdminDeps): Promise<Gate> {
  const session = await requireSession(request, deps);
  if (!session.ok) return session;
  if (isSameOrigin(request, deps.config.APP_URL)) return { ok: true };
  await request.body?.cancel().catch(() => undefined);
  deps.log('admin.refused', { reason: 'origin' });
  return { ok: false, response: await forbidden() };
}

const forbidden = () =>
  adminRefusedPage({ status: 403, title: 'Refused', message: 'This form was not sent from the ops page. Nothing was changed.' });

/**
 * The ops routes' one skeleton: method dispatch (405 with Allow), and a thrown error becomes the
 * ops page's own error page, logged as `admin.error` without the request's content.
 */
export const adminHandler = (methods: Parameters<typeof pageHandler<AdminDeps>>[0]['methods']) =>
  pageHandler<AdminDeps>({ name: 'admin', methods, errorPage: adminServerErrorPage });

/** GET /admin: the dashboard (or, after an action on a subscriber, that subscriber); POST /admin: look a subscriber up by email. */
export const handleAdminPage = adminHandler({
  GET: (request, deps) => show(request, deps),
  POST: (request, deps) => lookUp(request, deps),
});

async function show(request: Request, deps: AdminDeps): Promise<Response> {
  const gate = await requireSession(request, deps);
  if (!gate.ok) return gate.response;
  const { present, flash } = readFlash(request, { secret: deps.config.ADMIN_SECRET, now: deps.now });
  const cookies = present ? [clearedFlashCookie(isSecureApp(deps.config.APP_URL))] : [];
  if (flash?.uid) {
    const history = await readSubscriberHistory(deps.db, { uid: flash.uid });
    return subscriberPage({ now: deps.now, history, flash: flash.message, cookies, digestHourUtc: deps.config.DIGEST_HOUR_UTC });
  }
  const dashboard = await readDashboard(deps.db, {
    now: deps.now,
    configuredFeeds: configuredFeeds(deps),
    signupEmailsPerHour: deps.config.tuning?.SIGNUP_CONFIRMATIONS_PER_HOUR ?? SIGNUP_CONFIRMATIONS_PER_HOUR,
    ai: aiSettingsOf(deps.config),
    digestHourUtc: deps.config.DIGEST_HOUR_UTC,
  });
  return dashboardPage({ dashboard, flash: flash?.message, cookies });
}

function configuredFeeds(deps: AdminDeps) {
  try {
    return configuredSources(deps.config).map((source) => ({
      source: source.id,
      url: typeof source.params.url === 'string' ? source.params.url : adapterFor(source.kind).label(source),
      kind: source.kind,
      label: adapterFor(source.kind).label(source),
    }));
  } catch {
    return [];
  }
}

/** A POST, so the address never sits in a URL, a browser's history or an access log. */
async function lookUp(request: Request, deps: AdminDeps): Promise<Response> {
  const gate = await requireSessionAndOrigin(request, deps);
  if (!gate.ok) return gate.response;
  const form = await readAdminForm(request);
  const email = form?.get('email')?.trim() ?? '';
  if (!email || email.length > 254)
    return adminRefusedPage({ status: 400, title: 'No address', message: 'Type the subscriber’s email address to look them up.' });
  const history = await readSubscriberHistory(deps.db, { uid: subscriberId(email) });
  return subscriberPage({ now: deps.now, email, history, digestHourUtc: deps.config.DIGEST_HOUR_UTC });
}

async function holdsOpenSession(request: Request, deps: AdminDeps): Promise<boolean> {
  const check = verifySessionValue(readCookie(request, SESSION_COOKIE), { secret: deps.config.ADMIN_SECRET, now: deps.now });
  return check.ok && (await isAdminSessionOpen(deps.db, { sessionId: check.sessionId, now: deps.now }));
}

/**
 * POST /admin/login: origin, then an open session (its holder is sent to the dashboard), then the global lock and the limit per trusted client address
 * (login-gate.ts), then the secret, compared in constant time. A right secret gets the signed
 * session cookie and a redirect to the dashboard; a wrong one gets 401 and the form again, and no
 * cookie. The secret is never logged.
 */
export const handleAdminLogin = adminHandler({
  POST: async (request, deps) => {
    if (!isSameOrigin(request, deps.config.APP_URL)) {
      await request.body?.cancel().catch(() => undefined);
      deps.log('admin.refused', { reason: 'origin' });
      return forbidden();
    }
    const secret = deps.config.ADMIN_SECRET;
    // Already logged in: nothing to admit, so no lock or limit stands between an operator and the page.
    if (await holdsOpenSession(request, deps)) {
      await request.body?.cancel().catch(() => undefined);
      return adminRedirect([]);
    }
    const gate = await admitLogin(request, deps);
    if (!gate.ok) return gate.response;
    const form = await readAdminForm(request);
    if (!isAdminSecret(form?.get('secret') ?? '', secret)) return refuseWrongSecret(deps, gate.clientAddress);
    logLogin(deps, gate.clientAddress);
    const session = await openAdminSession(deps.db, { secret, now: deps.now });
    return adminRedirect([
      sessionCookie({ value: session.value, maxAgeSec: SESSION_TTL_MS / 1000, secure: isSecureApp(deps.config.APP_URL) }),
    ]);
  },
});

/**
 * POST /admin/logout: the session ends on the server (its document is deleted, so a copy of the
 * cookie opens nothing any more), and the browser's cookies are cleared. Rotating ADMIN_SECRET
 * still ends every session at once.
 */
export const handleAdminLogout = adminHandler({
  POST: async (request, deps) => {
    await request.body?.cancel().catch(() => undefined);
    if (!isSameOrigin(request, deps.config.APP_URL)) return forbidden();
    const check = verifySessionValue(readCookie(request, SESSION_COOKIE), { secret: deps.config.ADMIN_SECRET, now: deps.now });
    if (check.ok) await closeAdminSession(deps.db, check.sessionId);
    deps.log('admin.logout', { ended: check.ok });
    const secure = isSecureApp(deps.config.APP_URL);
    return adminRedirect([clearedSessionCookie(secure), clearedFlashCookie(secure)]);
  },
});
