import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { STYLESHEET } from '../lib/http/stylesheet';
import { FAVICON_ICO, FAVICON_SVG } from '../lib/http/favicon';

// Rendered per request: the proxy's script nonce is per response, and a prerendered page would carry none (its scripts would be blocked).
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: 'Scout — job alerts that fit',
  description: 'Scout watches job feeds and emails you only the postings that fit you, instantly or as one daily digest.',
  // The same icon links as the pages route handlers render (lib/http/page.tsx).
  icons: {
    icon: [
      { url: FAVICON_ICO, sizes: '32x32' },
      { url: FAVICON_SVG, type: 'image/svg+xml' },
    ],
  },
};

export const viewport: Viewport = {
  colorScheme: 'light dark',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        {/* The one stylesheet, shared with the pages route handlers render (lib/http/page.tsx): a static file, allowed by style-src 'self'. */}
        <link rel="stylesheet" href={STYLESHEET} />
      </head>
      <body className="site">
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="site-header">
          <a className="brand" href="/">
            Scout
          </a>
        </header>
        <main id="main">{children}</main>
        <footer className="site-footer">
          <p>Scout sends job alerts by email. Every email has a one-click unsubscribe link.</p>
        </footer>
      </body>
    </html>
  );
}
