import { handleAdminLogin } from '../../../lib/admin/handle-admin-request';
import { adminUnavailablePage } from '../../../lib/admin/admin-error-pages';
import { withDeadline } from '../../../lib/http/request-deadline';
import { withProductionDeps } from '../../../lib/wiring/production-deps';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST the admin secret; the answer is a signed session cookie and a redirect to /admin, or 401. */
export const POST = withProductionDeps(
  withDeadline((request, deps) => handleAdminLogin(request, { ...deps, now: new Date() }), { unavailable: adminUnavailablePage }),
);
