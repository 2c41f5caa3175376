import { Heading, Text } from '@react-email/components';
import { ActionButton } from './action-button';
import { linkStyle } from './email-styles';
import { EmailLayout, type FooterLinks } from './layout';

export type ChannelDisconnectedProps = {
  /** "Slack", "Discord", "Telegram", "Webhook". */
  kindName: string;
  /** What the preferences page shows of the destination (never its secret part). */
  label: string;
  /** What the platform answered, in its words: `slack 404 no_service`. */
  reason: string;
  preferencesUrl: string;
  footer: FooterLinks;
};

export const channelDisconnectedSubject = (kindName: string) => `Scout stopped sending to your ${kindName} channel`;

/**
 * Sent once when a channel's destination answers "gone" (a deleted Slack or Discord webhook, a
 * blocked Telegram bot, a webhook's 410): the channel is disabled at once, and the subscriber
 * learns it here rather than wondering why the alerts stopped.
 */
export function ChannelDisconnectedEmail({ kindName, label, reason, preferencesUrl, footer }: ChannelDisconnectedProps) {
  return (
    <EmailLayout preview={`Your ${kindName} channel no longer accepts messages, so Scout stopped sending to it.`} footer={footer}>
      <Heading as="h1" style={{ fontSize: 22, margin: '8px 0 4px' }}>
        Your {kindName} channel was disconnected
      </Heading>
      <Text style={{ fontSize: 15, color: '#374151', lineHeight: '22px' }}>
        Scout tried to send postings to {label || `your ${kindName} channel`}, and {kindName} answered that it is gone ({reason}). Scout
        stopped sending there; your email alerts and other channels go on as before.
      </Text>
      <Text style={{ fontSize: 15, color: '#374151', lineHeight: '22px' }}>
        If you still want postings there, remove the channel on your preferences page and add it again with a working address.
      </Text>
      <ActionButton href={preferencesUrl}>Open my preferences</ActionButton>
      <Text style={{ fontSize: 13, color: '#4b5563', lineHeight: '20px' }}>
        If the button does not work, open this address in your browser:{' '}
        <a href={preferencesUrl} style={{ ...linkStyle, wordBreak: 'break-all' }}>
          {preferencesUrl}
        </a>
      </Text>
    </EmailLayout>
  );
}

ChannelDisconnectedEmail.PreviewProps = {
  kindName: 'Slack',
  label: 'hooks.slack.com/services/T0…/B0…/••••',
  reason: 'slack 404 no_service',
  preferencesUrl: 'https://scout.example.com/preferences?token=preview',
  footer: {
    unsubscribeUrl: 'https://scout.example.com/unsubscribe?token=preview',
    preferencesUrl: 'https://scout.example.com/preferences?token=preview',
    archiveUrl: 'https://scout.example.com/archive?token=preview',
  },
} satisfies ChannelDisconnectedProps;
