import { Heading, Text } from '@react-email/components';
import { ActionButton } from './action-button';
import { linkStyle } from './email-styles';
import { EmailLayout, type FooterLinks } from './layout';

export type ManageSubscriptionProps = { preferencesUrl: string; paused: boolean; footer: FooterLinks };

export const manageSubscriptionSubject = () => 'Your Scout subscription';

/**
 * Sent instead of a confirmation when the signup form is used with an address that is already
 * subscribed: an anonymous form may not change a subscriber's preferences, so the owner gets a
 * signed link to change them (or not) themselves.
 */
export function ManageSubscriptionEmail({ preferencesUrl, paused, footer }: ManageSubscriptionProps) {
  return (
    <EmailLayout preview="You're already subscribed. Change your preferences here." footer={footer}>
      <Heading as="h1" style={{ fontSize: 22, margin: '8px 0 4px' }}>
        You're already subscribed
      </Heading>
      <Text style={{ fontSize: 15, color: '#374151', lineHeight: '22px' }}>
        Someone, hopefully you, just used Scout's signup form with this address. It already has a subscription, so nothing was changed: your
        keywords, excludes, budget and delivery mode are as you left them.
        {paused ? ' Your alerts are paused; you can resume them from your preferences.' : ''}
      </Text>
      <ActionButton href={preferencesUrl}>Manage my subscription</ActionButton>
      <Text style={{ fontSize: 13, color: '#4b5563', lineHeight: '20px' }}>
        If the button does not work, open this address in your browser:{' '}
        <a href={preferencesUrl} style={{ ...linkStyle, wordBreak: 'break-all' }}>
          {preferencesUrl}
        </a>
        <br />
        If it wasn't you, there is nothing to do.
      </Text>
    </EmailLayout>
  );
}

ManageSubscriptionEmail.PreviewProps = {
  preferencesUrl: 'https://scout.example.com/preferences?token=preview',
  paused: false,
  footer: {
    unsubscribeUrl: 'https://scout.example.com/unsubscribe?token=preview',
    preferencesUrl: 'https://scout.example.com/preferences?token=preview',
    archiveUrl: 'https://scout.example.com/archive?token=preview',
  },
} satisfies ManageSubscriptionProps;
