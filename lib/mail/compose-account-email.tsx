import { render } from '@react-email/render';
import { confirmUrl, LINK_LIFETIME_DAYS, preferencesUrl } from '../subscribers/link-token';
import type { Subscriber } from '../subscribers/subscriber';
import { footerLinks, textFooter, unsubscribeHeaders, type MailSettings } from './compose-email';
import type { EmailPayload } from './email-payload';
import { ConfirmSubscriptionEmail, confirmSubscriptionSubject } from './templates/confirm-subscription';
import { ManageSubscriptionEmail, manageSubscriptionSubject } from './templates/manage-subscription';
import { ChannelDisconnectedEmail, channelDisconnectedSubject } from './templates/channel-disconnected';

/**
 * The emails about the account itself, as opposed to postings: the double opt-in, and the
 * "you're already subscribed, here is your preferences link" answer to a repeated signup.
 */

export async function composeConfirmation(input: {
  subscriber: Pick<Subscriber, 'id' | 'email'>;
  /** The signup's nonce: the link confirms that signup and no later one. */
  nonce: string;
  settings: MailSettings;
  now: Date;
}): Promise<EmailPayload> {
  const url = confirmUrl({
    appUrl: input.settings.appUrl,
    uid: input.subscriber.id,
    secret: input.settings.linkSecret,
    issuedAt: input.now,
    nonce: input.nonce,
  });
  const expiresInDays = LINK_LIFETIME_DAYS.confirm;
  const html = await render(<ConfirmSubscriptionEmail confirmUrl={url} expiresInDays={expiresInDays} />);
  const text = [
    'Confirm your Scout subscription',
    '',
    "Someone, hopefully you, asked Scout to email job postings that fit them to this address. Confirm that it's you and the alerts start:",
    '',
    url,
    '',
    `The link works for ${expiresInDays} days.`,
    '',
    '--',
    "You get this one email because this address was entered on Scout's signup form. If that wasn't you, ignore it: without a confirmation Scout sends nothing more.",
    '',
  ].join('\n');
  return {
    from: input.settings.from,
    to: input.subscriber.email,
    subject: confirmSubscriptionSubject(),
    html,
    text,
    // No List-Unsubscribe: the recipient is not subscribed yet, so there is nothing to leave, and an
    // unsubscribe link would only offer a way out of a list they are not on. Ignoring this email is
    // the opt-out: an unconfirmed address receives nothing else.
    headers: {},
  };
}

export async function composeManageLink(input: {
  subscriber: Pick<Subscriber, 'id' | 'email' | 'status' | 'linkVersion'>;
  settings: MailSettings;
  now: Date;
}): Promise<EmailPayload> {
  const footer = footerLinks(input.settings, input.subscriber, input.now);
  const url = preferencesUrl({
    appUrl: input.settings.appUrl,
    uid: input.subscriber.id,
    linkVersion: input.subscriber.linkVersion,
    secret: input.settings.linkSecret,
    issuedAt: input.now,
  });
  const paused = input.subscriber.status === 'paused';
  const html = await render(<ManageSubscriptionEmail preferencesUrl={url} paused={paused} footer={footer} />);
  const text = [
    "You're already subscribed to Scout",
    '',
    "Someone, hopefully you, just used Scout's signup form with this address. It already has a subscription, so nothing was changed: your keywords, excludes, budget and delivery mode are as you left them." +
      (paused ? ' Your alerts are paused; you can resume them from your preferences.' : ''),
    '',
    'Manage your subscription:',
    url,
    '',
    "If it wasn't you, there is nothing to do.",
  ].join('\n');
  return {
    from: input.settings.from,
    to: input.subscriber.email,
    subject: manageSubscriptionSubject(),
    html,
    text: `${text}${textFooter(footer)}`,
    headers: unsubscribeHeaders(footer.unsubscribeUrl),
  };
}

/** The email that tells a subscriber one of their channels answered "gone" and was disabled. */
export async function composeChannelDisconnected(input: {
  subscriber: Pick<Subscriber, 'id' | 'email' | 'linkVersion'>;
  channel: { kindName: string; label: string };
  reason: string;
  settings: MailSettings;
  now: Date;
}): Promise<EmailPayload> {
  const footer = footerLinks(input.settings, input.subscriber, input.now);
  const { kindName, label } = input.channel;
  const html = await render(
    <ChannelDisconnectedEmail
      kindName={kindName}
      label={label}
      reason={input.reason}
      preferencesUrl={footer.preferencesUrl}
      footer={footer}
    />,
  );
  const text = [
    `Your ${kindName} channel was disconnected`,
    '',
    `Scout tried to send postings to ${label || `your ${kindName} channel`}, and ${kindName} answered that it is gone (${input.reason}). Scout stopped sending there; your email alerts and other channels go on as before.`,
    '',
    'If you still want postings there, remove the channel on your preferences page and add it again with a working address:',
    footer.preferencesUrl,
  ].join('\n');
  return {
    from: input.settings.from,
    to: input.subscriber.email,
    subject: channelDisconnectedSubject(kindName),
    html,
    text: `${text}${textFooter(footer)}`,
    headers: unsubscribeHeaders(footer.unsubscribeUrl),
  };
}
