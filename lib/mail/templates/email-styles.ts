import type { CSSProperties } from 'react';

/**
 * The few styles every Scout email shares. Inline, as email clients drop most <style> rules, and
 * only what caniemail says the clients checked in test/mail/email-client-support.test.tsx support.
 * Every target a thumb must hit is at least 44 px tall (Apple's and WCAG 2.5.5's size): a 20 px
 * line inside 12 px of padding above and below.
 */
export const TAP_TARGET: CSSProperties = { display: 'inline-block', padding: '12px 0', lineHeight: '20px' };

/** Links look like links: the blue and the underline every reader knows. */
export const LINK_COLOR = '#1d4ed8';
export const linkStyle: CSSProperties = { color: LINK_COLOR, textDecoration: 'underline' };

/** The primary action of a card or an email: a filled button (its text's size is its parent's). */
export const primaryButton: CSSProperties = {
  ...TAP_TARGET,
  padding: '12px 18px',
  background: LINK_COLOR,
  color: '#ffffff',
  fontWeight: 600,
  textDecoration: 'none',
  borderRadius: 6,
};

/** A second action beside it: outlined, as large to tap (11 px of padding and 1 px of border). */
export const secondaryButton: CSSProperties = {
  ...TAP_TARGET,
  padding: '11px 14px',
  border: '1px solid #d1d5db',
  color: '#374151',
  textDecoration: 'none',
  borderRadius: 6,
};

/**
 * Long words (a hostile 300-character title, a URL) wrap instead of widening a 320 px screen.
 * `word-break: break-word` rather than `overflow-wrap`, which caniemail says Gmail, Apple Mail and
 * Outlook.com drop.
 */
export const WRAP: CSSProperties = { wordBreak: 'break-word' };
