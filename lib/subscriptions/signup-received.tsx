import type { ReactNode } from 'react';
import type { SignupFormValues } from './signup-form-values';
import { RESEND_AFTER_SEC, resendHint } from './resend-wait';

/**
 * What a visitor sees once a signup is accepted, the one copy of it: the page POST /api/signup
 * answers a form post with, which the form script (lib/client) shows in place of the landing page's
 * form (counting down to "Send it again" there, with resendHint). It
 * names the address the email went to, with "Not you? Change it", says where else to look, and
 * offers "Send it again" — a form that posts the same signup once more (`action=resend`), so the
 * resend goes through the signup's own path and limits and mails the same kind of email (a
 * confirmation, or a manage link for someone already subscribed). Everything the visitor typed
 * rides along in hidden fields, so "Change it" (`action=change`) brings the form back as it was.
 *
 * It reads the same for every address — new, pending, subscribed, held back by a limit: only the
 * address the visitor typed themselves differs, so the page cannot tell anyone who subscribes.
 */

export { RESEND_AFTER_SEC };

export type SignupReceivedViewProps = {
  /** The address the email was sent to, as the visitor typed (or confirmed) it. */
  email: string;
  /** The whole signup as typed, sent again by "Send it again" and brought back by "Change it". */
  values: SignupFormValues;
  /** This page answers "Send it again". */
  resent?: boolean;
};

export function SignupReceivedView({ email, values, resent = false }: SignupReceivedViewProps) {
  return (
    <div className="signup-done">
      <h1 tabIndex={-1}>{resent ? 'Sent again' : 'Check your inbox'}</h1>
      <p>
        {resent ? 'We have sent another email to ' : 'We have sent an email to '}
        <strong className="signup-address">{email}</strong>. Open the link in it to confirm your subscription (or, if you are already
        subscribed, to manage it).
      </p>
      <form method="post" action="/api/signup" className="signup-again">
        <HiddenSignup email={email} values={values} />
        <p>
          Not you?{' '}
          <button type="submit" name="action" value="change" className="link-button" formNoValidate>
            Change it
          </button>
        </p>
        <p>
          Nothing after a few minutes? Look in your spam or junk folder (and mark it “not spam”, so the next one lands in your inbox). Still
          nothing? Ask for it again.
        </p>
        <p className="form-buttons">
          <button type="submit" name="action" value="resend" className="secondary" aria-describedby="signup-resend-hint" formNoValidate>
            Send it again
          </button>
        </p>
        <p id="signup-resend-hint" className="fine" aria-live="polite">
          {resendHint(0)}
        </p>
      </form>
    </div>
  );
}

/**
 * The signup as hidden fields: what was typed, and the address as `confirmedEmail` too, so a
 * resend is not asked about a typo the visitor has already answered.
 */
function HiddenSignup({ email, values }: { email: string; values: SignupFormValues }) {
  const fields: ReactNode[] = [];
  const hidden = (name: string, value: string, key = name) => fields.push(<input key={key} type="hidden" name={name} value={value} />);
  hidden('email', email);
  hidden('confirmedEmail', email);
  hidden('keywords', values.keywords);
  hidden('excludes', values.excludes);
  // A written query is the subscription: a resend without it would sign up for its words alone.
  if (values.query) hidden('query', values.query);
  hidden('minFixed', values.minFixed);
  hidden('minHourly', values.minHourly);
  hidden('minYearly', values.minYearly);
  hidden('minCurrency', values.minCurrency);
  if (values.about) hidden('about', values.about);
  hidden('mode', values.mode);
  hidden('timezone', values.timezone);
  hidden('digestHour', values.digestHour);
  for (const day of values.weekdays) hidden('weekdays', day, `weekdays-${day}`);
  hidden('weeklyDay', values.weeklyDay);
  return <>{fields}</>;
}
