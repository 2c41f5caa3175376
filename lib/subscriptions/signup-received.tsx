import type { ReactNode, Ref, SubmitEventHandler } from 'react';
import type { SignupFormValues } from './signup-form';

/**
 * What a visitor sees once a signup is accepted, the one copy of it: the page POST /api/signup
 * answers a form post with, and what the landing page's script shows in place of the form. It
 * names the address the email went to, with "Not you? Change it", says where else to look, and
 * offers "Send it again" — a form that posts the same signup once more (`action=resend`), so the
 * resend goes through the signup's own path and limits and mails the same kind of email (a
 * confirmation, or a manage link for someone already subscribed). Everything the visitor typed
 * rides along in hidden fields, so "Change it" (`action=change`) brings the form back as it was.
 *
 * It reads the same for every address — new, pending, subscribed, held back by a limit: only the
 * address the visitor typed themselves differs, so the page cannot tell anyone who subscribes.
 */

/**
 * How long "Send it again" waits: the mailbox's window (SIGNUP_LIMITS.addressWindowMs in
 * lib/http/rate-limit.ts, which a test holds this to). A resend asked for that long after the
 * email it follows always falls in a later window, so the limit lets it through, up to the
 * mailbox's 5 a day; one asked sooner is answered alike and sends nothing. A constant here rather
 * than an import: the landing page's browser bundle reads this file.
 */
export const RESEND_AFTER_SEC = 600;

export type SignupReceivedViewProps = {
  /** The address the email was sent to, as the visitor typed (or confirmed) it. */
  email: string;
  /** The whole signup as typed, sent again by "Send it again" and brought back by "Change it". */
  values: SignupFormValues;
  /** This page answers "Send it again". */
  resent?: boolean;
  headingLevel?: 1 | 2;
  /** The script's countdown: seconds before "Send it again" may be pressed (0 or absent: now). */
  resendInSec?: number;
  busy?: boolean;
  /** A resend that was refused as a whole (the network, the per-client limit). */
  formError?: string | null;
  onSubmit?: SubmitEventHandler<HTMLFormElement>;
  formRef?: Ref<HTMLFormElement>;
  headingRef?: Ref<HTMLHeadingElement>;
};

export function SignupReceivedView({
  email,
  values,
  resent = false,
  headingLevel = 1,
  resendInSec = 0,
  busy = false,
  formError = null,
  onSubmit,
  formRef,
  headingRef,
}: SignupReceivedViewProps) {
  const Heading = headingLevel === 1 ? 'h1' : 'h2';
  const waiting = resendInSec > 0;
  return (
    <div className="signup-done">
      <Heading ref={headingRef} tabIndex={-1}>
        {resent ? 'Sent again' : 'Check your inbox'}
      </Heading>
      <p>
        {resent ? 'We have sent another email to ' : 'We have sent an email to '}
        <strong className="signup-address">{email}</strong>. Open the link in it to confirm your subscription (or, if you are already
        subscribed, to manage it).
      </p>
      <form ref={formRef} method="post" action="/api/signup" className="signup-again" onSubmit={onSubmit} aria-busy={busy || undefined}>
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
        {formError ? (
          <p className="form-error" role="alert">
            {formError}
          </p>
        ) : null}
        <p className="form-buttons">
          <button
            type="submit"
            name="action"
            value="resend"
            className="secondary"
            disabled={busy || waiting}
            aria-describedby="signup-resend-hint"
            formNoValidate
          >
            {busy ? 'Sending…' : 'Send it again'}
          </button>
        </p>
        <p id="signup-resend-hint" className="fine" aria-live="polite">
          {waiting
            ? `You can ask again in ${clock(resendInSec)}.`
            : `Scout sends one email to an address every ${RESEND_AFTER_SEC / 60} minutes at most, and 5 a day: ask again no sooner than that.`}
        </p>
      </form>
    </div>
  );
}

/** "9:05": minutes and seconds. */
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.ceil(seconds) % 60).padStart(2, '0')}`;

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
