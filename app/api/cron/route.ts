import { handleCronRequest } from '../../../lib/cron/handle-cron-request';
import { ConfigError } from '../../../lib/config';
import { productionDeps } from '../../../lib/runtime';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// Vercel's wall for one invocation; the cycle stops starting new work before it (RUN_BUDGET_MS).
export const maxDuration = 300;

export async function GET(request: Request): Promise<Response> {
  let deps;
  try {
    deps = productionDeps();
  } catch (error) {
    // Names the bad variables in the server log; the caller learns only that the server is misconfigured.
    console.error(error instanceof ConfigError ? error.message : error);
    return Response.json({ error: 'server misconfigured' }, { status: 500 });
  }
  return handleCronRequest(request, deps);
}
