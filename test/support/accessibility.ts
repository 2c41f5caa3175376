import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** The rules a page is held to: WCAG 2.1 A and AA, as axe-core tags them, and axe's best practices. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export type ColourScheme = 'light' | 'dark';

/**
 * Every axe-core violation on the page as it stands, in light and then in dark mode (the pages
 * follow prefers-color-scheme, so each scheme has contrasts of its own), one line each:
 * "dark: color-contrast: .card-meta — Element has insufficient color contrast of 3.9…". Empty
 * when the page passes. The page is left in light mode.
 */
export async function accessibilityViolations(
  page: Page,
  options: { schemes?: readonly ColourScheme[]; disableRules?: readonly string[] } = {},
): Promise<string[]> {
  const { schemes = ['light', 'dark'], disableRules = [] } = options;
  const found: string[] = [];
  for (const scheme of schemes) {
    await page.emulateMedia({ colorScheme: scheme });
    const results = await new AxeBuilder({ page })
      .withTags(TAGS)
      .disableRules([...disableRules])
      .analyze();
    for (const violation of results.violations)
      for (const node of violation.nodes)
        found.push(
          `${scheme}: ${violation.id}: ${node.target.join(' ')} — ${node.failureSummary?.split('\n').slice(1).join(' ').trim() ?? violation.help}`,
        );
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/**
 * An email is shown inside its client's own page, which has the landmarks (Gmail's main, its
 * navigation): the email's body is one region of it, so axe's "one main landmark" and "all content
 * in landmarks" page rules do not apply to it. Every WCAG rule does.
 */
export const EMAIL_EXEMPT_RULES = ['landmark-one-main', 'region'] as const;
