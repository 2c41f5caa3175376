/**
 * How long "Send it again" waits: the mailbox's window (SIGNUP_LIMITS.addressWindowMs in
 * lib/http/rate-limit.ts, which a test holds this to). A resend asked for that long after the
 * email it follows always falls in a later window, so the limit lets it through, up to the
 * mailbox's 5 a day; one asked sooner is answered alike and sends nothing. Its own file, free of
 * React and the server: the form script (lib/client) counts down with it.
 */
export const RESEND_AFTER_SEC = 600;

/** The line under "Send it again": the rule, or, while the form script counts down, the time left. */
export const resendHint = (waitSec: number) =>
  waitSec > 0
    ? `You can ask again in ${clock(waitSec)}.`
    : `Scout sends one email to an address every ${RESEND_AFTER_SEC / 60} minutes at most, and 5 a day: ask again no sooner than that.`;

/** "9:05": minutes and seconds. */
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.ceil(seconds) % 60).padStart(2, '0')}`;
