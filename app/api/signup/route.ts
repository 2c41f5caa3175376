import { ConfigError } from '../../../lib/config';
import { productionDeps } from '../../../lib/runtime';
import { handleSignupRequest } from '../../../lib/subscribers/handle-signup-request';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST only: JSON from the landing page's script, or the form itself when there is no script. */
export async function POST(request: Request): Promise<Response> {
  let deps;
  try {
    deps = productionDeps();
  } catch (error) {
    // Names the bad variables in the server log; the visitor learns only that something is wrong on our side.
    console.error(error instanceof ConfigError ? error.message : error);
    return Response.json({ error: 'server misconfigured' }, { status: 500 });
  }
  return handleSignupRequest(request, { ...deps, now: new Date() });
}
