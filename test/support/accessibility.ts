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
export async function accessibilityViolations(page: Page, schemes: readonly ColourScheme[] = ['light', 'dark']): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of schemes) {
    await page.emulateMedia({ colorScheme: scheme });
    const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
    for (const violation of results.violations)
      for (const node of violation.nodes)
        found.push(
          `${scheme}: ${violation.id}: ${node.target.join(' ')} — ${node.failureSummary?.split('\n').slice(1).join(' ').trim() ?? violation.help}`,
        );
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}
