import { ErrorPage, pageResponse } from '../http/page';
import type { TokenCheck } from '../subscribers/link-token';

/** Why a signed link opened nothing (link-token.ts). */
export type LinkFailure = Extract<TokenCheck, { ok: false }>['reason'];
/** Each page's own words for each failure: what the link was for, and that nothing happened. */
export type LinkFailureCopy = Record<LinkFailure, { title: string; message: string }>;

/** A signed link that opened nothing: 400, the page's words for why, and no form or button. */
export function linkFailedPage(copy: LinkFailureCopy, reason: LinkFailure): Promise<Response> {
  const failure = copy[reason];
  return pageResponse(
    <ErrorPage title={failure.title}>
      <p>{failure.message}</p>
    </ErrorPage>,
    { status: 400 },
  );
}
