import { ConfigError, loadConfig, serviceAccountKey, type Config } from '../runtime/config';
import type { AppDeps } from './app-deps';
import { noFailpoints } from '../runtime/failpoints';
import { jsonLogger } from '../runtime/logger';
import { createFirestore } from '../store/firestore';
import { fetch as undiciFetch } from 'undici';
import { createResendMailer } from '../mail/mailer';
import { createSendLimiter, SEND_CONCURRENCY } from '../mail/send-limiter';
import { createAuthFailureLog } from '../ops/auth-failures';
import { createVerdictClient } from '../verdicts/ask-verdicts';
import { createChannelSender, sendChannelTestVia } from '../messages/channel-sender';

/**
 * The production wiring of the cycle's dependencies, from the environment. Built once per server
 * instance and reused across invocations: serverless platforms keep a warm instance, and the
 * Firestore client's connection is worth keeping.
 */
let cached: AppDeps | undefined;

export function productionDeps(): AppDeps {
  cached ??= buildDeps(loadConfig(process.env));
  return cached;
}

export function buildDeps(config: Config): AppDeps {
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const channelSender = createChannelSender(config, { clock: Date.now, sleep });
  return {
    config,
    db: createFirestore({ projectId: config.FIREBASE_PROJECT_ID, serviceAccountJson: serviceAccountKey(config.FIREBASE_SERVICE_ACCOUNT) }),
    mailer: createResendMailer({ apiKey: config.RESEND_API_KEY, baseUrl: config.RESEND_BASE_URL }),
    fetch: undiciFetch,
    failpoint: noFailpoints,
    log: jsonLogger,
    wallClock: Date.now,
    sleep,
    sendLimiter: createSendLimiter({
      ratePerSec: config.SEND_RATE_PER_SEC,
      concurrency: config.tuning?.SEND_CONCURRENCY ?? SEND_CONCURRENCY,
      sleep,
    }),
    authFailureLog: createAuthFailureLog(),
    verdictClient: createVerdictClient(config),
    channelSender,
    sendChannelTest: sendChannelTestVia(channelSender),
  };
}

/**
 * What a misconfigured server answers: 503 (the deployment, not the request, is at fault), naming
 * the variables to fix — their names only; a value may be a secret.
 */
export function misconfiguredResponse(error: ConfigError): Response {
  return Response.json({ error: 'server misconfigured', variables: error.variables }, { status: 503 });
}

/**
 * Every route's wrapper: builds the production dependencies once. A misconfigured server logs the
 * bad variables and answers `misconfiguredResponse`, or, for a page a subscriber reads, that
 * route's own error page with the same 503.
 */
export function withProductionDeps(
  handle: (request: Request, deps: AppDeps) => Promise<Response>,
  misconfiguredPage?: () => Response | Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    let deps: AppDeps;
    try {
      deps = productionDeps();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(error.message);
      if (!misconfiguredPage) return misconfiguredResponse(error);
      const page = await misconfiguredPage();
      return new Response(page.body, { status: 503, headers: page.headers });
    }
    return handle(request, deps);
  };
}
