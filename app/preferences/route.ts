import { ConfigError } from '../../lib/config';
import { productionDeps } from '../../lib/runtime';
import { handlePreferencesRequest } from '../../lib/subscribers/handle-preferences-request';
import { preferencesServerErrorPage } from '../../lib/subscribers/preferences-page';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the subscriber's form (and changes nothing); POST saves, pauses or resumes. */
async function handle(request: Request): Promise<Response> {
  let deps;
  try {
    deps = productionDeps();
  } catch (error) {
    // Names the bad variables in the server log; the visitor learns only that something is wrong on our side.
    console.error(error instanceof ConfigError ? error.message : error);
    return preferencesServerErrorPage();
  }
  return handlePreferencesRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log });
}

export const GET = handle;
export const POST = handle;
