import { Heading, Text } from '@react-email/components';
import { ActionButton } from './action-button';
import { linkStyle } from './email-styles';
import { EmailLayout } from './layout';

export type ConfirmSubscriptionProps = { confirmUrl: string; expiresInDays: number };

export const confirmSubscriptionSubject = () => 'Confirm your Scout subscription';

/**
 * The double opt-in. It repeats nothing the form's sender typed (keywords, excludes): whoever
 * submits the public form chooses the recipient, so echoing their text would let anyone send
 * their words from our domain. The confirmation page shows the preferences to the mailbox's owner.
 */
export function ConfirmSubscriptionEmail({ confirmUrl, expiresInDays }: ConfirmSubscriptionProps) {
  return (
    <EmailLayout
      preview="One click and your job alerts start."
      footer={null}
      reason="You get this one email because this address was entered on Scout's signup form. If that wasn't you, ignore it: without a confirmation Scout sends nothing more."
    >
      <Heading as="h1" style={{ fontSize: 22, margin: '8px 0 4px' }}>
        Confirm your subscription
      </Heading>
      <Text style={{ fontSize: 15, color: '#374151', lineHeight: '22px' }}>
        Someone, hopefully you, asked Scout to email job postings that fit them to this address. Confirm that it's you and the alerts start.
      </Text>
      <ActionButton href={confirmUrl}>Confirm my subscription</ActionButton>
      <Text style={{ fontSize: 13, color: '#4b5563', lineHeight: '20px' }}>
        The link works for {expiresInDays} day{expiresInDays === 1 ? '' : 's'}. If the button does not work, open this address in your
        browser:{' '}
        <a href={confirmUrl} style={{ ...linkStyle, wordBreak: 'break-all' }}>
          {confirmUrl}
        </a>
      </Text>
    </EmailLayout>
  );
}

ConfirmSubscriptionEmail.PreviewProps = {
  confirmUrl: 'https://scout.example.com/confirm?token=preview',
  expiresInDays: 2,
} satisfies ConfirmSubscriptionProps;
