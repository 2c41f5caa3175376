import { Body, Container, Head, Hr, Html, Link, Preview, Section, Text } from '@react-email/components';
import type { ReactNode } from 'react';

/** The subscriber's links at the foot of an email: their archive (postings sent in the last 30 days), preferences, unsubscribe. */
export type FooterLinks = { unsubscribeUrl: string; preferencesUrl?: string | null; archiveUrl?: string | null };

const SUBSCRIBED_REASON = 'You get this because you subscribed to Scout job alerts.';

/**
 * The frame of every Scout email. `footer` carries the subscriber's links; an email to someone who
 * is not subscribed yet (the double opt-in) has none and says instead why it came (`reason`).
 */
export function EmailLayout({
  preview,
  children,
  footer,
  reason = SUBSCRIBED_REASON,
  footerNote = null,
}: {
  preview: string;
  children: ReactNode;
  footer: FooterLinks | null;
  reason?: string;
  /** A line above the links, e.g. the digest's "Checked 412 postings from 6 sources". */
  footerNote?: string | null;
}) {
  return (
    <Html lang="en">
      <Head />
      <Preview>{preview}</Preview>
      <Body style={{ backgroundColor: '#f6f7f9', fontFamily: '-apple-system, Segoe UI, Helvetica, Arial, sans-serif', margin: 0 }}>
        <Container style={{ backgroundColor: '#ffffff', maxWidth: 600, margin: '24px auto', padding: '24px 28px', borderRadius: 8 }}>
          <Text style={{ fontSize: 13, letterSpacing: 1, textTransform: 'uppercase', color: '#6b7280', margin: 0 }}>Scout</Text>
          {children}
          <Hr style={{ borderColor: '#e5e7eb', margin: '24px 0 12px' }} />
          <Section>
            {footerNote ? (
              <Text style={{ fontSize: 12, color: '#6b7280', lineHeight: '18px', margin: '0 0 6px' }}>{footerNote}</Text>
            ) : null}
            <Text style={{ fontSize: 12, color: '#6b7280', lineHeight: '18px', margin: 0 }}>
              {reason}
              {footer ? ' ' : null}
              {footer?.archiveUrl ? (
                <>
                  <Link href={footer.archiveUrl} style={{ color: '#6b7280' }}>
                    Your archive
                  </Link>
                  {' · '}
                </>
              ) : null}
              {footer?.preferencesUrl ? (
                <>
                  <Link href={footer.preferencesUrl} style={{ color: '#6b7280' }}>
                    Change preferences
                  </Link>
                  {' · '}
                </>
              ) : null}
              {footer ? (
                <Link href={footer.unsubscribeUrl} style={{ color: '#6b7280' }}>
                  Unsubscribe
                </Link>
              ) : null}
            </Text>
          </Section>
        </Container>
      </Body>
    </Html>
  );
}
