import { handleAdminPage } from '../../lib/admin/handle-admin-request';
import { adminUnavailablePage } from '../../lib/admin/admin-error-pages';
import { withDeadline } from '../../lib/http/request-deadline';
import { withProductionDeps } from '../../lib/wiring/production-deps';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET shows the ops dashboard (or the login form without a session); POST looks a subscriber up by email. */
const handle = withProductionDeps(
  withDeadline((request, deps) => handleAdminPage(request, { ...deps, now: new Date() }), { unavailable: adminUnavailablePage }),
);

export const GET = handle;
export const POST = handle;
