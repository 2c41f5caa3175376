import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../support/browser';
import { composeInstantAlert } from '../../lib/mail/compose-email';
import { berlinSubscriber, everyEmail, now, realisticItems, settings } from '../mail/email-fixtures';

/**
 * Scout's emails on the narrowest phone still sold (320 CSS px), as a phone's mail client lays
 * them out: Chromium in mobile mode, which, like those clients, lays a page out 980 px wide and
 * shrinks it unless the page's viewport meta says otherwise. Nothing may be wider than the screen,
 * and every link a thumb must hit is at least 44 px tall.
 */
const PHONE = { width: 320, height: 640 };
const TAP = 44;

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
});
afterAll(async () => browser?.close());

/** A hostile card too: a 300-character title of one word must wrap, not widen the email. */
const withOneLongWord = () => {
  const items = realisticItems(3);
  items[1] = { ...items[1], posting: { ...items[1].posting, title: 'W'.repeat(300), company: 'C'.repeat(200) } };
  return items;
};

const EMAILS = everyEmail(withOneLongWord());

describe('every email on a 320 px phone', () => {
  for (const [name, compose] of EMAILS) {
    it(`${name}: laid out at the screen's width, nothing wider, every link at least ${TAP} px tall`, async () => {
      await page.setContent((await compose()).html);
      const layout = await page.evaluate(() => ({
        viewport: window.innerWidth,
        scrollWidth: document.documentElement.scrollWidth,
        // Every link but those inside running text (a card's "Seen on" sources, the confirm's address in full).
        targets: [...document.querySelectorAll('a')]
          .filter((a) => getComputedStyle(a).display === 'inline-block')
          .map((a) => ({ text: a.textContent, height: a.getBoundingClientRect().height })),
        buttons: [...document.querySelectorAll('a')].filter((a) => /^(View posting|Not a fit)$/.test(a.textContent ?? '')).length,
      }));
      await screenshot(page, `19-email-${name.replaceAll(' ', '-')}-320px`);
      expect(layout.viewport).toBe(PHONE.width);
      expect(layout.scrollWidth).toBeLessThanOrEqual(PHONE.width);
      expect(layout.targets.length).toBeGreaterThan(0);
      for (const target of layout.targets) expect(target.height, target.text ?? '').toBeGreaterThanOrEqual(TAP);
      if (['alert', 'digest', 'welcome'].includes(name)) {
        expect(layout.buttons).toBeGreaterThan(0);
        expect(layout.targets.map((t) => t.text)).toEqual(
          expect.arrayContaining(['View posting', 'Not a fit', 'Your archive', 'Atom feed', 'Unsubscribe']),
        );
      }
    });
  }

  it('a title is a link that looks like one: blue and underlined', async () => {
    await page.setContent((await composeInstantAlert({ subscriber: berlinSubscriber, items: realisticItems(1), settings, now })).html);
    const title = await page.evaluate(() => {
      const a = [...document.querySelectorAll('a')].find((link) => link.textContent === 'Senior React Engineer')!;
      const style = getComputedStyle(a);
      return { decoration: style.textDecorationLine, color: style.color };
    });
    expect(title).toEqual({ decoration: 'underline', color: 'rgb(29, 78, 216)' });
  });
});
