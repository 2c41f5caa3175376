import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

/**
 * Every page (the landing page and the pages route handlers render) shares public/scout.css, so
 * its link rules are the links of every page: each state has its colour, and each colour reads at
 * WCAG AA (4.5:1 for text) on both backgrounds a link sits on, in the light scheme and the dark.
 */
const css = await readFile(new URL('../../public/scout.css', import.meta.url), 'utf8');

function variablesIn(block: string): Record<string, string> {
  return Object.fromEntries([...block.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})/g)].map((m) => [m[1], m[2]]));
}
const light = variablesIn(/:root\s*{([^}]*)}/.exec(css)![1]);
const dark = { ...light, ...variablesIn(/@media \(prefers-color-scheme: dark\)\s*{\s*:root\s*{([^}]*)}/.exec(css)![1]) };

/** WCAG 2 relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

describe('link colours on every page', () => {
  it('a:link, a:visited, a:hover and a:focus-visible each have a rule, in the scheme’s colours', () => {
    expect(css).toMatch(/a:link\s*{\s*color: var\(--link\);/);
    expect(css).toMatch(/a:visited\s*{\s*color: var\(--link-visited\);/);
    expect(css).toMatch(/a:hover,\s*a:active\s*{\s*color: var\(--link-hover\);/);
    expect(css).toMatch(/a:focus-visible,[^{]*{\s*outline: 3px solid/);
  });

  it.each([
    ['light', light],
    ['dark', dark],
  ])('%s: every link state reads at AA on the page and on a card', (_scheme, colours) => {
    for (const state of ['link', 'link-visited', 'link-hover'])
      for (const background of ['bg', 'card']) {
        const ratio = contrast(colours[state], colours[background]);
        expect(ratio, `--${state} on --${background}: ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(4.5);
      }
    // A visited link is told apart from an unvisited one, not only by the browser's history.
    expect(colours['link-visited']).not.toBe(colours.link);
  });
});
