import { ConfigError } from '../../lib/config';
import { productionDeps } from '../../lib/runtime';
import { confirmServerErrorPage } from '../../lib/subscribers/confirm-page';
import { handleConfirmRequest } from '../../lib/subscribers/handle-confirm-request';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the one button, POST (the button) confirms the subscription. */
async function handle(request: Request): Promise<Response> {
  let deps;
  try {
    deps = productionDeps();
  } catch (error) {
    // Names the bad variables in the server log; the visitor learns only that something is wrong on our side.
    console.error(error instanceof ConfigError ? error.message : error);
    return confirmServerErrorPage();
  }
  return handleConfirmRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log });
}

export const GET = handle;
export const POST = handle;
