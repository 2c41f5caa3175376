import { resendLatestDigest } from '../ops/resend-digest';
import { shortHash } from '../store/short-hash';
import { retryDeadEmail } from '../ops/retry-email';
import { setSubscriberStatus } from '../subscribers/set-subscriber-status';
import { subscribersCollection } from '../subscribers/subscriber';
import { adminRedirect, readAdminForm } from './admin-http';
import { adminRefusedPage } from './admin-error-pages';
import { flashCookie } from './flash';
import type { AdminDeps } from './admin-deps';
import { adminHandler, requireSessionAndOrigin } from './handle-admin-request';
import { isSecureApp } from './session';

/** Document ids the forms carry: subscriber ids (base64url) and email keys (`alert_{uid}_{hash}`, …). */
const ID_PATTERN = /^[A-Za-z0-9_-]{1,600}$/;

export const ADMIN_ACTIONS = ['retry', 'resend-digest', 'pause', 'resume'] as const;
type AdminAction = (typeof ADMIN_ACTIONS)[number];

/**
 * POST /admin/actions: session, origin, then one action, then 303 back to /admin with a short
 * message in a signed flash cookie (never in the URL: an email key or subscriber id is the
 * address in base64url). `back` names the subscriber whose page to show again.
 */
export const handleAdminAction = adminHandler({
  POST: async (request, deps) => {
    const gate = await requireSessionAndOrigin(request, deps);
    if (!gate.ok) return gate.response;
    const form = await readAdminForm(request);
    const action = form?.get('action') as AdminAction | undefined;
    if (!form || !action || !ADMIN_ACTIONS.includes(action)) return badRequest('The form asked for something the ops page does not do.');
    const back = form.get('back');
    if (back !== null && !ID_PATTERN.test(back)) return badRequest('The form named no subscriber the ops page knows.');

    const message = action === 'retry' ? await retry(deps, form.get('emailKey')) : await onSubscriber(deps, action, form.get('uid'));
    if (message === null) return badRequest('The form named nothing to act on.');
    return adminRedirect([
      flashCookie({ message, uid: back }, { secret: deps.config.ADMIN_SECRET, now: deps.now, secure: isSecureApp(deps.config.APP_URL) }),
    ]);
  },
});

const badRequest = (message: string) => adminRefusedPage({ status: 400, title: 'Nothing was done', message });

async function retry(deps: AdminDeps, emailKey: string | null): Promise<string | null> {
  if (!emailKey || !ID_PATTERN.test(emailKey)) return null;
  const result = await retryDeadEmail(deps.db, { emailKey, now: deps.now });
  // The key holds the address in base64url: the log gets a digest of it.
  deps.log('admin.action', { action: 'retry', email: shortHash(emailKey, 12), outcome: result.kind });
  switch (result.kind) {
    case 'retried':
      return `Retried ${emailKey}: it is pending again under the same key, and the next run sends it (if the subscriber may still receive it).`;
    case 'lost-race':
      return `${emailKey} changed while it was being retried (another click?). Nothing more was done; check its state below.`;
    case 'refused':
      return `Not retried: ${emailKey} is ${result.status}, and only a dead email can be retried.`;
    case 'not-found':
      return `Not retried: there is no email ${emailKey}.`;
  }
}

async function onSubscriber(deps: AdminDeps, action: Exclude<AdminAction, 'retry'>, uid: string | null): Promise<string | null> {
  if (!uid || !ID_PATTERN.test(uid)) return null;
  const subscriber = (await subscribersCollection(deps.db).doc(uid).get()).data();
  if (!subscriber) return 'There is no such subscriber any more.';
  const log = (outcome: string) => deps.log('admin.action', { action, subscriber: shortHash(uid, 12), outcome });

  if (action === 'resend-digest') {
    const result = await resendLatestDigest(deps, { email: subscriber.email, now: deps.now });
    log(result.kind === 'resent' ? result.result : result.kind);
    switch (result.kind) {
      case 'resent':
        if (result.result === 'sent') return `Sent ${result.emailKey}, a copy of ${result.copyOf}.`;
        if (result.result === 'quota')
          return `Queued ${result.emailKey}: the provider's quota is reached; the first run after it resets sends it.`;
        return `Queued ${result.emailKey} (${result.result}); the next run finishes it.`;
      case 'refused':
        return `Not sent: they are ${result.status} (opt-outs win).`;
      case 'not-digest':
        return `Not sent: they get ${result.mode === 'feed' ? 'no email (feed only)' : 'instant alerts'}, not digests.`;
      case 'no-digest':
        return 'Not sent: no digest was ever claimed for them.';
      case 'not-found':
        return 'There is no such subscriber any more.';
    }
  }

  const result = await setSubscriberStatus(deps.db, { email: subscriber.email, action, now: deps.now });
  log(result.kind);
  switch (result.kind) {
    case 'change':
      return action === 'pause' ? 'Paused: Scout sends them nothing until they are resumed.' : 'Resumed: Scout emails them again.';
    case 'unchanged':
      return `Nothing to do: they are already ${result.from}.`;
    case 'refused':
      return `Not ${action === 'pause' ? 'paused' : 'resumed'}: they are ${result.from} — ${result.reason}.`;
    case 'not-found':
      return 'There is no such subscriber any more.';
  }
}
