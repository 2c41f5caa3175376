import { clientAddressOf, clientLogId, UNKNOWN_CLIENT } from '../http/client-address';
import { countLoginFailure, lockRetryAfterSec, readLoginLock, recordAuthFailure } from '../ops/auth-failures';
import { loginPage } from './login-page';
import { utc } from './ops-view';
import type { AdminDeps } from './admin-deps';
import { claimLockedAttempt, countLoginAttempt, LOGIN_LIMIT } from './login-limit';

export type LoginGate = { ok: true; clientAddress: string } | { ok: false; response: Response };

/**
 * Before the secret is read: the global lock, then the per-client limit, both on the trusted
 * client address. A refused attempt is a failed login: logged (rate-limited) and counted.
 * Without a trusted address neither may refuse everyone for one caller (login-limit.ts): the
 * lock only paces the attempts, and there is no per-client limit.
 */
export async function admitLogin(request: Request, deps: AdminDeps): Promise<LoginGate> {
  const clientAddress = clientAddressOf(request, deps.config);
  const trusted = clientAddress !== UNKNOWN_CLIENT;
  const lock = await readLoginLock(deps.db, deps.now);
  if (lock && !trusted) {
    const paced = await claimLockedAttempt(deps.db, deps.now);
    if (paced.allowed) return { ok: true, clientAddress };
    await refused(request, deps, { clientAddress, reason: 'paced' });
    return {
      ok: false,
      response: await loginPage({
        status: 429,
        message: `Login is slowed for everyone until ${utc(lock.until)} UTC after too many failed logins: try again in ${paced.retryAfterSec} seconds. Sessions already open keep working.`,
        retryAfterSec: paced.retryAfterSec,
      }),
    };
  }
  if (lock) {
    await refused(request, deps, { clientAddress, reason: 'locked' });
    return {
      ok: false,
      response: await loginPage({
        status: 429,
        message: `Login is locked for everyone until ${utc(lock.until)} UTC after too many failed logins. Sessions already open keep working.`,
        retryAfterSec: lockRetryAfterSec(lock, deps.now),
      }),
    };
  }
  if (!trusted) return { ok: true, clientAddress };
  const attempt = await countLoginAttempt(deps.db, { clientAddress, secret: deps.config.ADMIN_SECRET, now: deps.now });
  if (!attempt.allowed) {
    await refused(request, deps, { clientAddress, reason: 'rate-limited' });
    return {
      ok: false,
      response: await loginPage({
        status: 429,
        message: 'Too many attempts from here. Wait a minute and try again.',
        retryAfterSec: attempt.retryAfterSec,
      }),
    };
  }
  return { ok: true, clientAddress };
}

/** A wrong secret: logged and counted, and counted towards the global lock, which is logged once when it closes. */
export async function refuseWrongSecret(deps: AdminDeps, clientAddress: string): Promise<Response> {
  await recordAuthFailure(deps, {
    kind: 'login',
    event: 'admin.login',
    clientAddress,
    fields: { ok: false, reason: 'wrong-secret' },
    now: deps.now,
  });
  const lock = await countLoginFailure(deps.db, deps.now);
  if (lock)
    deps.log('admin.login_locked', {
      until: lock.until.toISOString(),
      failures: lock.failures,
      windowMinutes: LOGIN_LIMIT.failureWindowMs / 60_000,
    });
  return loginPage({ status: 401, message: 'That is not the admin secret.' });
}

export const logLogin = (deps: AdminDeps, clientAddress: string) =>
  deps.log('admin.login', { ok: true, client: clientLogId(clientAddress, deps.config.LINK_SECRET) });

async function refused(request: Request, deps: AdminDeps, input: { clientAddress: string; reason: 'locked' | 'paced' | 'rate-limited' }) {
  await request.body?.cancel().catch(() => undefined);
  await recordAuthFailure(deps, {
    kind: 'login',
    event: 'admin.login',
    clientAddress: input.clientAddress,
    fields: { ok: false, reason: input.reason },
    now: deps.now,
  });
}
