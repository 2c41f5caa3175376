import { silentLogger, type Logger } from '../runtime/logger';

export type PageMethod = 'GET' | 'POST';

/**
 * The skeleton every page route shares: dispatch on the method (HEAD is answered as GET; any other
 * method gets 405 with Allow), and a thrown error becomes the route's own error page, logged as
 * `<name>.error` without the request's content. A misconfigured server never reaches here: the
 * route's withProductionDeps answers 503 with the same error page (or JSON).
 */
export function pageHandler<D extends { log?: Logger }>(input: {
  /** The log prefix: `confirm` logs `confirm.error`. */
  name: string;
  methods: Partial<Record<PageMethod, (request: Request, deps: D) => Promise<Response>>>;
  errorPage: () => Promise<Response>;
}): (request: Request, deps: D) => Promise<Response> {
  const allowed = Object.keys(input.methods) as PageMethod[];
  const allow = allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
  return async (request, deps) => {
    const method = request.method === 'HEAD' ? 'GET' : (request.method as PageMethod);
    const handle = allowed.includes(method) ? input.methods[method] : undefined;
    if (!handle) {
      await request.body?.cancel().catch(() => undefined);
      return new Response('Method Not Allowed', { status: 405, headers: { allow } });
    }
    try {
      return await handle(request, deps);
    } catch (error) {
      (deps.log ?? silentLogger)(`${input.name}.error`, {
        method: request.method,
        error: error instanceof Error ? error.message : String(error),
      });
      return input.errorPage();
    }
  };
}
