import { handleCronRequest } from '../../../lib/cron/handle-cron-request';
import { withProductionDeps } from '../../../lib/wiring/production-deps';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// Vercel's wall for one invocation; the cycle stops starting new work before it (RUN_BUDGET_MS).
export const maxDuration = 300;

export const GET = withProductionDeps(handleCronRequest);
// Next answers a HEAD by running GET when no HEAD is exported: a HEAD must never run a cycle.
export const HEAD = () => new Response(null, { status: 405, headers: { allow: 'GET' } });
