import { ConfigError, loadConfig, type Config } from './config';
import type { CycleDeps } from './cycle/cycle-deps';
import { noFailpoints } from './cycle/failpoints';
import { jsonLogger } from './cycle/logger';
import { createFirestore } from './firestore';
import { createResendMailer } from './mail/mailer';
import { createSendLimiter } from './mail/send-limiter';
import { createAuthFailureLog } from './ops/auth-failures';

/**
 * The production wiring of the cycle's dependencies, from the environment. Built once per server
 * instance and reused across invocations: serverless platforms keep a warm instance, and the
 * Firestore client's connection is worth keeping.
 */
let cached: CycleDeps | undefined;

export function productionDeps(): CycleDeps {
  cached ??= buildDeps(loadConfig(process.env));
  return cached;
}

export function buildDeps(config: Config): CycleDeps {
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  return {
    config,
    db: createFirestore({ projectId: config.FIREBASE_PROJECT_ID, serviceAccountJson: config.FIREBASE_SERVICE_ACCOUNT }),
    mailer: createResendMailer({ apiKey: config.RESEND_API_KEY, baseUrl: config.RESEND_BASE_URL }),
    fetch: globalThis.fetch,
    failpoint: noFailpoints,
    log: jsonLogger,
    wallClock: Date.now,
    sleep,
    sendLimiter: createSendLimiter({ ratePerSec: config.SEND_RATE_PER_SEC, concurrency: config.SEND_CONCURRENCY, sleep }),
    authFailureLog: createAuthFailureLog(),
  };
}

/**
 * Every route's wrapper: builds the production dependencies once, and answers a misconfigured
 * server with `misconfigured()` — the bad variables are named in the server log, never to the caller.
 */
export function withProductionDeps(
  handle: (request: Request, deps: CycleDeps) => Promise<Response>,
  misconfigured: () => Response = () => Response.json({ error: 'server misconfigured' }, { status: 500 }),
): (request: Request) => Promise<Response> {
  return async (request) => {
    let deps: CycleDeps;
    try {
      deps = productionDeps();
    } catch (error) {
      console.error(error instanceof ConfigError ? error.message : error);
      return misconfigured();
    }
    return handle(request, deps);
  };
}
