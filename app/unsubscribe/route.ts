import { ConfigError } from '../../lib/config';
import { productionDeps } from '../../lib/runtime';
import { handleUnsubscribeRequest } from '../../lib/subscribers/handle-unsubscribe-request';
import { unsubscribeServerErrorPage } from '../../lib/subscribers/unsubscribe-page';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the question, POST (the page's button or RFC 8058 one-click) unsubscribes. */
async function handle(request: Request): Promise<Response> {
  let deps;
  try {
    deps = productionDeps();
  } catch (error) {
    // Names the bad variables in the server log; the visitor learns only that something is wrong on our side.
    console.error(error instanceof ConfigError ? error.message : error);
    return unsubscribeServerErrorPage();
  }
  return handleUnsubscribeRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log });
}

export const GET = handle;
export const POST = handle;
