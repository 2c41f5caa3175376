import type { Firestore } from 'firebase-admin/firestore';
import { decideNotAFit, readNotAFit, recordNotAFit, type NotAFitDecision } from '../feedback/record-not-a-fit';
import { pageHandler } from '../http/page-handler';
import { readForm } from '../http/read-body';
import { isSameOrigin } from '../http/same-origin';
import { aiEnabled, type Config } from '../runtime/config';
import { silentLogger, type Logger } from '../runtime/logger';
import { preferencesUrl, verifyLinkToken, type TokenCheck } from '../subscribers/link-token';
import {
  askNotAFitPage,
  notAFitLinkFailedPage,
  notAFitRefusedPage,
  notAFitServerErrorPage,
  notedPage,
  notSubscribedPage,
  postingGonePage,
} from './not-a-fit-page';

export type NotAFitDeps = {
  db: Firestore;
  config: Pick<Config, 'LINK_SECRET' | 'APP_URL' | 'RETENTION_DAYS' | 'AI_BASE_URL' | 'AI_MODEL'>;
  now: Date;
  log?: Logger;
};

/** The button posts one short field; anything bigger is not our form. */
export const MAX_NOT_A_FIT_BODY_BYTES = 1024;

/**
 * GET|POST /not-a-fit?token=. The signed token (purpose `not-a-fit`, naming the subscriber and the
 * posting) is the whole credential. GET (and HEAD) only read and show one button: mail scanners
 * prefetch every link in an email. POST, from Scout's own page only, records the feedback once.
 */
export const handleNotAFitRequest = pageHandler<NotAFitDeps>({
  name: 'not-a-fit',
  methods: {
    GET: (request, deps) => show(request, deps),
    POST: (request, deps) => record(request, deps, deps.log ?? silentLogger),
  },
  errorPage: notAFitServerErrorPage,
});

type Link = { ok: true; token: string; uid: string; jobId: string; linkVersion: number } | Extract<TokenCheck, { ok: false }>;

function openLink(request: Request, deps: NotAFitDeps): Link {
  const token = new URL(request.url).searchParams.get('token');
  const check = verifyLinkToken(token, { secret: deps.config.LINK_SECRET, purpose: 'not-a-fit', now: deps.now });
  if (!check.ok) return check;
  return { ok: true, token: token!, uid: check.claims.uid, jobId: check.claims.job!, linkVersion: check.claims.linkVersion ?? 0 };
}

async function show(request: Request, deps: NotAFitDeps): Promise<Response> {
  const link = openLink(request, deps);
  if (!link.ok) return notAFitLinkFailedPage(link.reason);
  const decision = decideNotAFit(await readNotAFit(deps.db, link));
  if (decision.kind === 'ask') return askNotAFitPage({ token: link.token, title: decision.posting.title });
  if (decision.kind === 'already') return noted(deps, { link, title: decision.feedback.title, alreadyRecorded: true });
  return refusal(deps, link, decision, 200);
}

async function record(request: Request, deps: NotAFitDeps, log: Logger): Promise<Response> {
  const cancel = () => request.body?.cancel().catch(() => undefined);
  // The token is the credential, but a page on another site must not spend a click it tricked out of a subscriber.
  if (!isSameOrigin(request, deps.config.APP_URL)) {
    await cancel();
    log('not-a-fit.refused', { reason: 'origin' });
    return notAFitRefusedPage(403);
  }
  const link = openLink(request, deps);
  if (!link.ok) {
    await cancel();
    log('not-a-fit.refused', { reason: link.reason });
    return notAFitLinkFailedPage(link.reason);
  }
  const form = await readForm(request, MAX_NOT_A_FIT_BODY_BYTES);
  if (!form.ok) return notAFitRefusedPage(form.reason === 'too-large' ? 413 : 415);

  const result = await recordNotAFit(deps.db, {
    uid: link.uid,
    jobId: link.jobId,
    linkVersion: link.linkVersion,
    now: deps.now,
    retentionDays: deps.config.RETENTION_DAYS,
  });
  if (!result.ok) {
    log('not-a-fit.refused', { reason: result.decision.kind });
    return refusal(deps, link, result.decision, 409);
  }
  log('feedback.recorded', { alreadyRecorded: result.alreadyRecorded });
  return noted(deps, { link, title: result.feedback.title, alreadyRecorded: result.alreadyRecorded });
}

type OpenLink = Extract<Link, { ok: true }>;

/** Signed with the link's own version, which the decision found current. */
const linkToPreferences = (deps: NotAFitDeps, link: OpenLink) =>
  preferencesUrl({
    appUrl: deps.config.APP_URL,
    uid: link.uid,
    linkVersion: link.linkVersion,
    secret: deps.config.LINK_SECRET,
    issuedAt: deps.now,
  });

const noted = (deps: NotAFitDeps, input: { link: OpenLink; title: string; alreadyRecorded: boolean }) =>
  notedPage({
    title: input.title,
    alreadyRecorded: input.alreadyRecorded,
    preferencesLink: linkToPreferences(deps, input.link),
    aiEnabled: aiEnabled(deps.config),
  });

/** Why nothing is (or was) recorded. `notSubscribedStatus`: 200 for a GET, whose page is the answer; 409 for a refused POST. */
function refusal(
  deps: NotAFitDeps,
  link: OpenLink,
  decision: Exclude<NotAFitDecision, { kind: 'ask' | 'already' }>,
  notSubscribedStatus: 200 | 409,
): Promise<Response> {
  if (decision.kind === 'unknown-subscriber') return notSubscribedPage({ status: 'unknown' });
  if (decision.kind === 'link-revoked') return notAFitLinkFailedPage('expired');
  if (decision.kind === 'not-subscribed') return notSubscribedPage({ status: decision.status, httpStatus: notSubscribedStatus });
  return postingGonePage({ retentionDays: deps.config.RETENTION_DAYS, preferencesLink: linkToPreferences(deps, link) });
}
