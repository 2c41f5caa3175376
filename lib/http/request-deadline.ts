import { silentLogger, type Logger } from '../runtime/logger';

/**
 * How long a person waits on the store before being told to try again. Firestore answers a
 * healthy request in tens of milliseconds; an unreachable one leaves the client retrying for
 * minutes (a signup hung over 120 s), which no person should watch.
 */
export const PERSON_DEADLINE_MS = 8_000;

/**
 * Wraps a handler a person waits on (signup, the link pages, the ops page) so that it answers
 * `unavailable()` — a 503 with Retry-After — when it has not finished by the deadline. The work
 * itself is not cut short: every step of it is a claim the store referees, so a late finish is as
 * safe as a repeat; its late failure is logged, never left unhandled.
 */
export function withDeadline<D extends { log?: Logger }>(
  handle: (request: Request, deps: D) => Promise<Response>,
  input: { unavailable: () => Response | Promise<Response>; ms?: number },
): (request: Request, deps: D) => Promise<Response> {
  return async (request, deps) => {
    const ms = input.ms ?? PERSON_DEADLINE_MS;
    const work = handle(request, deps);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), ms);
    });
    try {
      const first = await Promise.race([work, expired]);
      if (first !== 'expired') return first;
      const path = new URL(request.url).pathname;
      const log = deps.log ?? silentLogger;
      log('request.deadline', { path, deadlineMs: ms });
      work.catch((error) => log('request.late_failure', { path, error: error instanceof Error ? error.message : String(error) }));
      const response = await input.unavailable();
      const headers = new Headers(response.headers);
      headers.set('retry-after', '30');
      headers.set('cache-control', 'no-store');
      return new Response(response.body, { status: 503, headers });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The JSON answer of an API a person's browser waits on. */
export const unavailableJson = () => Response.json({ error: 'temporarily unavailable; try again in a minute' }, { status: 503 });
