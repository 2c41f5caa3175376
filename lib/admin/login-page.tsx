import { Page } from '../http/page';
import { adminPageResponse } from './ops-view';

/** The whole page when there is no valid session: nothing about the system, just the form. */
export function loginPage(input: { status: number; message?: string; cookies?: string[]; retryAfterSec?: number }): Promise<Response> {
  return adminPageResponse(
    <Page title="Operator login" layout="card admin">
      <h1>Operator login</h1>
      <p>
        The ops page shows what Scout ran, sent and failed. Enter the admin secret (<code>ADMIN_SECRET</code>).
      </p>
      {input.message ? (
        <div className="alert" role="alert">
          <p>{input.message}</p>
        </div>
      ) : null}
      <form method="post" action="/admin/login" className="login">
        <label htmlFor="secret">Admin secret</label>
        <input type="password" id="secret" name="secret" required autoComplete="current-password" autoFocus />
        <button type="submit">Log in</button>
      </form>
    </Page>,
    input,
  );
}

// ---------- dashboard ----------
