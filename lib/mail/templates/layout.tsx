import { Body, Container, Head, Html, Preview } from '@react-email/components';
import type { ReactNode } from 'react';
import { TAP_TARGET, WRAP } from './email-styles';

/**
 * The subscriber's links at the foot of an email: their archive (postings sent in the last 30
 * days), their private Atom feed (emails of postings only), preferences, unsubscribe.
 */
export type FooterLinks = { unsubscribeUrl: string; preferencesUrl?: string | null; archiveUrl?: string | null; feedUrl?: string | null };

const SUBSCRIBED_REASON = 'You get this because you subscribed to Scout job alerts.';

const footerText = { fontSize: 13, color: '#4b5563', lineHeight: '20px', margin: '0 0 4px' };
// Each link is its own 44 px target, spaced so a thumb hits one and not its neighbour.
const footerLink = { ...TAP_TARGET, marginRight: 18, fontSize: 14, color: '#374151', textDecoration: 'underline' };

/**
 * The frame of every Scout email. `footer` carries the subscriber's links; an email to someone who
 * is not subscribed yet (the double opt-in) has none and says instead why it came (`reason`).
 *
 * Fluid: the container is the screen's width up to 600 px, with no fixed width anywhere, and the
 * viewport meta tells a phone client not to lay it out at a desktop's 980 px and shrink it.
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
  const links: [string, string | null | undefined][] = footer
    ? [
        ['Your archive', footer.archiveUrl],
        ['Atom feed', footer.feedUrl],
        ['Change preferences', footer.preferencesUrl],
        ['Unsubscribe', footer.unsubscribeUrl],
      ]
    : [];
  return (
    <Html lang="en">
      <Head>
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* What a screen reader announces, and a tab shows, when the email is opened in a window of its own. */}
        <title>Scout</title>
      </Head>
      <Preview>{preview}</Preview>
      <Body style={{ backgroundColor: '#f6f7f9', fontFamily: '-apple-system, Segoe UI, Helvetica, Arial, sans-serif', margin: 0 }}>
        <Container style={{ backgroundColor: '#ffffff', maxWidth: 600, margin: '0 auto', padding: '20px 16px', ...WRAP }}>
          <p style={{ fontSize: 13, letterSpacing: 1, textTransform: 'uppercase', color: '#4b5563', margin: 0 }}>Scout</p>
          {children}
          <div style={{ borderTop: '1px solid #e5e7eb', marginTop: 24, paddingTop: 12 }}>
            {footerNote ? <p style={footerText}>{footerNote}</p> : null}
            <p style={footerText}>{reason}</p>
            {links.length > 0 ? (
              <p style={{ margin: 0 }}>
                {links.map(([label, href]) =>
                  href ? (
                    <a key={label} href={href} style={footerLink}>
                      {label}
                    </a>
                  ) : null,
                )}
              </p>
            ) : null}
          </div>
        </Container>
      </Body>
    </Html>
  );
}
