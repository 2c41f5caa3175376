import { handleAdminAction } from '../../../lib/admin/admin-actions';
import { adminUnavailablePage } from '../../../lib/admin/admin-error-pages';
import { withDeadline } from '../../../lib/http/request-deadline';
import { withProductionDeps } from '../../../lib/wiring/production-deps';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST one operator action (retry a dead email, resend a digest, pause or resume a subscriber), then 303 back to /admin. */
export const POST = withProductionDeps(
  withDeadline((request, deps) => handleAdminAction(request, { ...deps, now: new Date() }), { unavailable: adminUnavailablePage }),
);
