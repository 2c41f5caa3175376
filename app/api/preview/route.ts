import { unavailableJson, withDeadline } from '../../../lib/http/request-deadline';
import { withProductionDeps } from '../../../lib/wiring/production-deps';
import { handlePreviewRequest } from '../../../lib/subscriptions/handle-preview-request';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST only: JSON from the forms' scripts, or the signup form itself (its Preview button) when there is no script. */
export const POST = withProductionDeps(
  withDeadline((request, deps) => handlePreviewRequest(request, { ...deps, now: new Date() }), { unavailable: unavailableJson }),
);
