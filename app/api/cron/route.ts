import { handleCronRequest } from '../../../lib/cron/handle-cron-request';
import { withProductionDeps } from '../../../lib/runtime';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// Vercel's wall for one invocation; the cycle stops starting new work before it (RUN_BUDGET_MS).
export const maxDuration = 300;

export const GET = withProductionDeps(handleCronRequest);
