import { ConfigError, loadConfig, type Config } from './config';
import type { CycleDeps } from './cycle/cycle-deps';
import { noFailpoints } from './cycle/failpoints';
import { jsonLogger } from './cycle/logger';
import { createFirestore } from './firestore';
import { createResendMailer } from './mail/mailer';
import { fetch as undiciFetch } from 'undici';

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
  return {
    config,
    db: createFirestore({ projectId: config.FIREBASE_PROJECT_ID, serviceAccountJson: config.FIREBASE_SERVICE_ACCOUNT }),
    mailer: createResendMailer({ apiKey: config.RESEND_API_KEY, baseUrl: config.RESEND_BASE_URL }),
    fetch: undiciFetch,
    failpoint: noFailpoints,
    log: jsonLogger,
    wallClock: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
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
