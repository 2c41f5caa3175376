import { handleAdminAction } from '../../lib/admin/admin-actions';
import type { AdminDeps } from '../../lib/admin/admin-deps';
import { handleAdminLogin, handleAdminLogout, handleAdminPage } from '../../lib/admin/handle-admin-request';
import { openAdminSession } from '../../lib/admin/admin-sessions';
import type { Harness } from '../support/harness';

/** Calls the admin handlers as the route files do, with a Request a browser would send. */
export type AdminClient = {
  deps: AdminDeps;
  /** Everything the handlers logged, as JSON lines. */
  logs: string[];
  /** A session opened on the server (as a login does) and its cookie header, for `now`. */
  session(): Promise<string>;
  get(init?: { cookie?: string }): Promise<Answer>;
  post(path: '/admin' | '/admin/login' | '/admin/logout' | '/admin/actions', fields: Fields, init?: PostInit): Promise<Answer>;
};

/** Form fields; an undefined one is left out. */
export type Fields = Record<string, string | undefined>;
export type PostInit = { cookie?: string; origin?: string | null; ip?: string; headers?: Record<string, string> };
export type Answer = { status: number; body: string; headers: Headers; setCookies: string[] };

export const APP_ORIGIN = 'http://localhost:3000';

export function adminClient(h: Harness, now: Date): AdminClient {
  const logs: string[] = [];
  const deps: AdminDeps = { ...h.deps, now, log: (event, fields) => void logs.push(JSON.stringify({ event, ...fields })) };
  const answer = async (response: Response): Promise<Answer> => ({
    status: response.status,
    body: await response.text(),
    headers: response.headers,
    setCookies: response.headers.getSetCookie(),
  });
  const handlers = {
    '/admin': handleAdminPage,
    '/admin/login': handleAdminLogin,
    '/admin/logout': handleAdminLogout,
    '/admin/actions': handleAdminAction,
  };
  return {
    deps,
    logs,
    session: async () => `scout_admin=${(await openAdminSession(h.db, { secret: h.config.ADMIN_SECRET, now })).value}`,
    async get(init = {}) {
      const headers: Record<string, string> = init.cookie ? { cookie: init.cookie } : {};
      return answer(await handleAdminPage(new Request(`${APP_ORIGIN}/admin`, { headers }), deps));
    },
    async post(path, fields, init = {}) {
      const headers: Record<string, string> = {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': init.ip ?? '203.0.113.7',
        ...init.headers,
      };
      if (init.cookie) headers.cookie = init.cookie;
      if (init.origin !== null) headers.origin = init.origin ?? APP_ORIGIN;
      const request = new Request(`${APP_ORIGIN}${path}`, {
        method: 'POST',
        headers,
        body: new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined)).toString(),
      });
      return answer(await handlers[path](request, deps));
    },
  };
}

/** The value of a Set-Cookie (`name=value; …`) as a Cookie request header (`name=value`). */
export const asCookie = (setCookie: string) => setCookie.split(';')[0];
