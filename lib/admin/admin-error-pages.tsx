import { ErrorPage } from '../http/page';
import { adminPageResponse } from './ops-view';

/** A refused or failed admin request: the reason and a way back, with the route's status. */
export function adminRefusedPage(input: { status: 400 | 403 | 404 | 405 | 413 | 500; title: string; message: string }): Promise<Response> {
  return adminPageResponse(
    <ErrorPage title={input.title}>
      <p>{input.message}</p>
      <p className="fine">
        <a href="/admin">Back to the ops page</a>
      </p>
    </ErrorPage>,
    { status: input.status },
  );
}

/** Our failure; the operator may reload. */
export const adminServerErrorPage = () =>
  adminRefusedPage({ status: 500, title: 'Something went wrong', message: 'The ops page could not read or write the store. Try again.' });

/** The ops page when the store does not answer in time (withDeadline adds the 503 and Retry-After). */
export const adminUnavailablePage = () =>
  adminPageResponse(
    <ErrorPage title="Scout ops">
      <p>The database did not answer in time. Try again in a minute.</p>
    </ErrorPage>,
    { status: 503 },
  );
