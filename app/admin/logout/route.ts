import { handleAdminLogout } from '../../../lib/admin/handle-admin-request';
import { adminUnavailablePage } from '../../../lib/admin/admin-error-pages';
import { withDeadline } from '../../../lib/http/request-deadline';
import { withProductionDeps } from '../../../lib/wiring/production-deps';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST clears the session cookie and returns to the login form. */
export const POST = withProductionDeps(
  withDeadline((request, deps) => handleAdminLogout(request, { ...deps, now: new Date() }), { unavailable: adminUnavailablePage }),
);
