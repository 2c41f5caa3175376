import { withDeadline } from '../../lib/http/request-deadline';
import { withProductionDeps } from '../../lib/wiring/production-deps';
import { confirmServerErrorPage } from '../../lib/subscriptions/confirm-page';
import { handleConfirmRequest } from '../../lib/subscriptions/handle-confirm-request';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the one button, POST (the button) confirms the subscription. */
const handle = withProductionDeps(
  withDeadline((request, deps) => handleConfirmRequest(request, { ...deps, now: new Date() }), {
    unavailable: confirmServerErrorPage,
  }),
  confirmServerErrorPage,
);

export const GET = handle;
export const POST = handle;
