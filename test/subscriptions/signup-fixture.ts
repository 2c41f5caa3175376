import type { Logger } from '../../lib/runtime/logger';
import { handleConfirmRequest } from '../../lib/subscriptions/handle-confirm-request';
import { handleSignupRequest } from '../../lib/subscriptions/handle-signup-request';
import { handleUnsubscribeRequest } from '../../lib/subscriptions/handle-unsubscribe-request';
import type { Harness } from '../support/harness';

/** Calls the signup, confirm and unsubscribe handlers as their route files do, with the Requests a browser or mail client sends. */

export type Answer = { status: number; html: string; json: any; headers: Headers };

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null;
  return { status: response.status, html: text, json, headers: response.headers };
}

export type SignupPost = {
  now: Date;
  ip?: string;
  /** `form` posts application/x-www-form-urlencoded as the no-script form does; JSON otherwise. */
  form?: boolean;
  headers?: Record<string, string>;
};

export async function postSignup(h: Harness, body: Record<string, string>, options: SignupPost): Promise<Answer> {
  const request = new Request(`${h.config.APP_URL}/api/signup`, {
    method: 'POST',
    headers: {
      'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-forwarded-for': options.ip ?? '203.0.113.7',
      ...options.headers,
    },
    body: options.form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  });
  return answer(await handleSignupRequest(request, { ...h.deps, now: options.now }));
}

export async function callConfirm(h: Harness, method: 'GET' | 'POST', url: string, now: Date, log?: Logger): Promise<Answer> {
  const init: RequestInit =
    method === 'POST' ? { method, body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } } : { method };
  return answer(await handleConfirmRequest(new Request(url, init), { ...h.deps, now, log }));
}

export async function callUnsubscribe(h: Harness, url: string, now: Date): Promise<Answer> {
  const init = { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  return answer(await handleUnsubscribeRequest(new Request(url, init), { db: h.db, config: h.config, now }));
}

/** The signed link to `path` in an email's text. */
export function linkIn(text: string | null | undefined, appUrl: string, path: string): string {
  const match = text?.match(new RegExp(`${appUrl}${path}\\?token=[\\w.-]+`));
  if (!match) throw new Error(`no ${path} link in:\n${text}`);
  return match[0];
}

export const minutesAfter = (from: Date, minutes: number) => new Date(from.getTime() + minutes * 60_000);
