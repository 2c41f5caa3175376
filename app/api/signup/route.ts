import { unavailableJson, withDeadline } from '../../../lib/http/request-deadline';
import { withProductionDeps } from '../../../lib/wiring/production-deps';
import { handleSignupRequest } from '../../../lib/subscriptions/handle-signup-request';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST only: the signup form's post (the form script sends it the same way), or JSON from an API client. */
export const POST = withProductionDeps(
  withDeadline((request, deps) => handleSignupRequest(request, { ...deps, now: new Date() }), { unavailable: unavailableJson }),
);
