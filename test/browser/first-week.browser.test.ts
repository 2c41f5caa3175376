import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SinkMessage } from '../../scripts/mail-sink/types';
import { startFeedServer, type FeedServer } from '../../scripts/sample-feed/server';
import { rssFeed } from '../../scripts/sample-feed/rss-feed';
import { createFirestore } from '../../lib/store/firestore';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { addActiveSubscriber } from '../../lib/subscribers/add-subscriber';
import { accessibilityViolations, EMAIL_EXEMPT_RULES } from '../support/accessibility';
import {
  BROWSER_ADMIN_SECRET,
  BROWSER_CRON_SECRET,
  launchChromium,
  screenshot,
  sinkInbox,
  startBrowserApp,
  watchForCspViolations,
} from '../support/browser';
import type { NextProcess } from '../support/next-process';

/**
 * A subscriber's first week, as a person lives it, on a phone (390 px) and on a desktop (1280 px),
 * in Debian's Chromium against the real app (`next start`), the emulator and the mail sink: the
 * landing page with its sources and sample card, a mistyped address caught, the live preview beside
 * the typing, "check your inbox" naming the address, the confirmation email and page, the welcome
 * email with the week's best, a used confirm link, preferences, an alert, the archive, "not a fit",
 * a digest, unsubscribe with its alternatives and undo, a bad link, a missing page and the ops page.
 *
 * Every page and every email is checked by axe-core in light and dark mode (0 violations) and
 * saved as `week-NN-step-{phone|desktop}` in the screenshot folder: `npm run docs:screenshots`
 * writes them into docs/screenshots/, where the README shows them in this order.
 */
const WIDTHS = [
  { device: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
  { device: 'desktop', viewport: { width: 1280, height: 900 }, isMobile: false },
] as const;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const apiKey = `re_week_${randomBytes(4).toString('hex')}`;
const projectId = `scout-week-${randomBytes(4).toString('hex')}`;

let browser: Browser;
let server: NextProcess;
let feeds: FeedServer;
let appUrl: string;

/** Postings as a board writes them: HTML text, pay in the text, a link, a date; `age` before the real now. */
type Listing = { slug: string; title: string; company: string; pay: string; text: string; age: number };
const listings: Listing[] = [];
const item = (l: Listing) => ({
  guid: l.slug,
  title: `${l.title} at ${l.company}`,
  link: `https://jobs.example.com/jobs/${l.slug}`,
  description: `<p>${l.company} is hiring: ${l.text}</p><p><b>Budget</b>: ${l.pay}</p>`,
  pubDate: new Date(Date.now() - l.age).toUTCString(),
  categories: ['svelte'],
});
const publish = (...more: Listing[]) => {
  listings.push(...more);
  feeds.setFeed('/jobs.xml', {
    body: rssFeed(listings.map(item), { title: 'Remote gigs | Gigboard' }),
    contentType: 'application/rss+xml',
  });
};
/** What each device's subscriber meets after signing up: one posting for an alert, one for a digest. */
const FRESH: Record<'phone' | 'desktop', { alert: Omit<Listing, 'age'>; digest: Omit<Listing, 'age'> }> = {
  phone: {
    alert: {
      slug: 'initech-svelte',
      title: 'Svelte and Go engineer',
      company: 'Initech',
      pay: '$5,200',
      text: 'own the front end of our billing product in Svelte, with a little Go.',
    },
    digest: {
      slug: 'umbrella-sveltekit',
      title: 'SvelteKit developer, part time',
      company: 'Umbrella Health',
      pay: '$2,900',
      text: 'patient-facing forms in SvelteKit, twenty hours a week for three months.',
    },
  },
  desktop: {
    alert: {
      slug: 'hooli-svelte-performance',
      title: 'Svelte performance engineer',
      company: 'Hooli',
      pay: '$7,500',
      text: 'make our Svelte storefront fast on slow phones: profiling, hydration, bundles.',
    },
    digest: {
      slug: 'stark-svelte-maps',
      title: 'Maps in Svelte for a field-service app',
      company: 'Stark Field Services',
      pay: '$4,100',
      text: 'offline maps and routing screens in Svelte for technicians on the road.',
    },
  },
};
const runCron = async (now = new Date()) => {
  const res = await fetch(`${appUrl}/api/cron?now=${now.toISOString()}`, { headers: { authorization: `Bearer ${BROWSER_CRON_SECRET}` } });
  expect(res.status).toBe(200);
};
const inbox = (to: string) => sinkInbox(apiKey, to);
const linkIn = (message: SinkMessage, path: string) => {
  const match = new RegExp(`${appUrl}${path}\\?token=[A-Za-z0-9_.-]+`).exec(message.text ?? '');
  if (!match) throw new Error(`no ${path} link in "${message.subject}"`);
  return match[0];
};

beforeAll(async () => {
  feeds = await startFeedServer({ port: 0 });
  // The week before the signup: what the preview shows and the welcome email brings.
  publish(
    {
      slug: 'northwind-svelte',
      title: 'Senior Svelte Engineer',
      company: 'Northwind',
      pay: '$6,000',
      text: 'rebuild our booking flow in Svelte and TypeScript, remote within Europe.',
      age: 2 * DAY,
    },
    {
      slug: 'acme-dashboard',
      title: 'Svelte dashboard for a logistics startup',
      company: 'Acme Freight',
      pay: '$2,400',
      text: 'a SvelteKit dashboard over our REST API, charts and tables, four weeks.',
      age: 3 * DAY,
    },
    {
      slug: 'globex-design-system',
      title: 'Design system in Svelte',
      company: 'Globex',
      pay: '$3,800',
      text: 'turn our Figma components into an accessible Svelte library.',
      age: 4 * DAY,
    },
  );
  ({ server, appUrl } = await startBrowserApp({ apiKey, projectId, env: { FEED_URLS: `${feeds.url}/jobs.xml` } }));
  await runCron();
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await feeds?.close();
});

describe.each(WIDTHS)('a first week on a $device ($viewport.width px)', ({ device, viewport, isMobile }) => {
  const address = `ada.${device}@gmail.com`;
  const typo = `ada.${device}@gmial.con`;
  const uid = subscriberId(address);
  let context: BrowserContext;
  let page: Page;
  let step = 0;
  const violations: string[] = [];
  const cspViolations: string[] = [];

  /** One step of the story: its screenshot, and axe-core's verdict on it in both colour schemes. */
  const look = async (name: string, disableRules: readonly string[] = []) => {
    step += 1;
    await screenshot(page, `week-${String(step).padStart(2, '0')}-${name}-${device}`, { jpeg: true });
    violations.push(...(await accessibilityViolations(page, { disableRules })).map((v) => `${name}: ${v}`));
  };
  /** An email as its HTML renders at this width (a mail client's pane), looked at like a page. */
  const lookAtEmail = async (message: SinkMessage, name: string) => {
    await page.setContent(message.html ?? '', { waitUntil: 'load' });
    await look(name, EMAIL_EXEMPT_RULES);
  };
  const newest = async (predicate: (m: SinkMessage) => boolean) => {
    for (let i = 0; i < 50; i += 1) {
      const found = (await inbox(address)).filter(predicate).at(-1);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no such email for ${address}`);
  };

  beforeAll(async () => {
    context = await browser.newContext({ viewport, isMobile, hasTouch: isMobile });
    page = await context.newPage();
    watchForCspViolations(page, cspViolations);
  });
  afterAll(async () => context?.close());

  it('the landing page names its sources, shows a real card, and its first field is on the first screen', async () => {
    await page.goto(appUrl);
    expect(await page.locator('.sources-line').textContent()).toContain('Gigboard');
    expect(
      await page
        .locator('.sample-card')
        .getByRole('link', { name: /Svelte/ })
        .first()
        .isVisible(),
    ).toBe(true);
    const email = await page.locator('input[name=email]').boundingBox();
    expect(email!.y + email!.height).toBeLessThanOrEqual(viewport.height);
    await look('landing');
  });

  it('a mistyped domain is caught as the field is left; the preview follows the typing beside the field', async () => {
    await page.fill('input[name=email]', typo);
    await page.fill('[name=keywords]', 'svelte');
    await page.locator('.email-suggestion').waitFor();
    await look('typo-caught');
    await page.getByRole('button', { name: `Use ${address}` }).click();
    expect(await page.inputValue('input[name=email]')).toBe(address);

    await page.locator('.preview-count').waitFor();
    expect(await page.locator('.preview-count').textContent()).toMatch(/\d+ postings/);
    const keywords = (await page.locator('[name=keywords]').boundingBox())!;
    const preview = (await page.locator('.preview').boundingBox())!;
    if (isMobile) {
      // Under the keywords and excludes: within a screen of the field being typed.
      expect(preview.y).toBeGreaterThan(keywords.y);
      expect(preview.y - (keywords.y + keywords.height)).toBeLessThan(viewport.height / 2);
    } else {
      // A column of its own, level with the form.
      expect(preview.x).toBeGreaterThan(keywords.x + keywords.width);
      expect(Math.abs(preview.y - keywords.y)).toBeLessThan(viewport.height);
    }
    await look('preview');
  });

  it('signing up names the address, with a way to change it and a spam-folder hint', async () => {
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Check your inbox').waitFor();
    expect(await page.locator('.signup-address').textContent()).toBe(address);
    expect(await page.getByRole('button', { name: 'Change it' }).isVisible()).toBe(true);
    expect(await page.locator('main').textContent()).toMatch(/spam/i);
    await look('check-inbox');
  });

  it('the confirmation email, its one-button page, and confirmed', async () => {
    const confirmation = await newest((m) => /confirm/i.test(m.subject));
    await lookAtEmail(confirmation, 'confirmation-email');
    await page.goto(linkIn(confirmation, '/confirm'));
    await look('confirm');
    await page.getByRole('button', { name: /confirm/i }).click();
    await page.waitForLoadState('load');
    const db = createFirestore({ projectId });
    expect((await db.collection('users').doc(uid).get()).get('status')).toBe('active');
    await look('confirmed');

    // The confirm link again, as a person finds it in their inbox later: a way on, not a dead end.
    await page.goto(linkIn(confirmation, '/confirm'));
    expect(await page.getByRole('button', { name: /preferences/i }).count()).toBe(1);
    await look('confirm-used');
  });

  it('the welcome email brings the week’s best at once', async () => {
    const welcome = await newest((m) => m.subject.startsWith('Welcome'));
    expect(welcome.subject).toMatch(/^Welcome to Scout: \d+ matches/);
    expect(welcome.html).toContain('Senior Svelte Engineer');
    await lookAtEmail(welcome, 'welcome-email');
  });

  it('preferences, from a link in the email, and saved', async () => {
    const welcome = await newest((m) => m.subject.startsWith('Welcome'));
    await page.goto(linkIn(welcome, '/preferences'));
    await look('preferences');
    await page.fill('[name=excludes]', 'wordpress');
    await page.getByRole('button', { name: /save/i }).click();
    await page.getByText(/saved/i).first().waitFor();
    await look('preferences-saved');
  });

  it('a new posting comes as an alert; its archive, and "not a fit" on it', async () => {
    const fresh = FRESH[device];
    publish({ ...fresh.alert, age: HOUR });
    await runCron();
    const alert = await newest((m) => /^\d+ new: /.test(m.subject));
    expect(alert.html).toContain(fresh.alert.title);
    await lookAtEmail(alert, 'alert-email');

    await page.goto(linkIn(alert, '/archive'));
    await look('archive');

    await page.goto(linkIn(alert, '/not-a-fit'));
    await look('not-a-fit');
    await page.getByRole('button', { name: 'Not a fit' }).click();
    await page.getByText(/Noted/).first().waitFor();
    await look('not-a-fit-noted');
  });

  it('a daily digest at the subscriber’s hour', async () => {
    const db = createFirestore({ projectId });
    // Switched on the preferences page, as a person would: a daily digest two hours from now, in UTC.
    const hour = (new Date().getUTCHours() + 2) % 24;
    const alert = await newest((m) => /^\d+ new: /.test(m.subject));
    await page.goto(linkIn(alert, '/preferences'));
    await page.check('[name=mode][value=daily]');
    await page.selectOption('[name=timezone]', 'UTC');
    await page.selectOption('[name=digestHour]', String(hour));
    await page.getByRole('button', { name: /save/i }).click();
    await page.getByText(/saved/i).first().waitFor();
    expect((await db.collection('users').doc(uid).get()).data()).toMatchObject({ mode: 'daily', digestHour: hour });
    await look('preferences-daily');

    publish({ ...FRESH[device].digest, age: HOUR / 2 });
    await runCron();
    const due = new Date(Date.now() + 2 * HOUR + 5 * 60_000);
    due.setUTCMinutes(5, 0, 0);
    await runCron(due);
    const digest = await newest((m) => /in your digest/.test(m.subject));
    expect(digest.html).toContain(FRESH[device].digest.title);
    await lookAtEmail(digest, 'digest-email');

    await page.goto(linkIn(digest, '/unsubscribe'));
    expect(await page.getByRole('button', { name: /pause/i }).count()).toBe(1);
    await look('unsubscribe');
    await page.getByRole('button', { name: /^unsubscribe/i }).click();
    await page.waitForLoadState('load');
    expect((await db.collection('users').doc(uid).get()).get('status')).toBe('unsubscribed');
    await look('unsubscribed');
    await page.getByRole('button', { name: /undo/i }).click();
    await page.waitForLoadState('load');
    expect((await db.collection('users').doc(uid).get()).get('status')).toBe('active');
    await look('resubscribed');
  });

  it('a broken link and a missing page say so, and lead back', async () => {
    await page.goto(`${appUrl}/preferences?token=tampered.token`);
    await look('bad-link');
    await page.goto(`${appUrl}/no-such-page`);
    await look('not-found');
  });

  it('the ops page counts the subscribers', async () => {
    await page.goto(`${appUrl}/admin`);
    await look('admin-login');
    await page.fill('[name=secret]', BROWSER_ADMIN_SECRET);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('main').textContent()).toMatch(/subscribers/i);
    await look('admin');
  });

  it('the ops page looks up one subscriber: their emails and deliveries', async () => {
    await page.fill('#lookup-email', address);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('main').textContent()).toContain(`welcome_${uid}`);
    await look('admin-subscriber');
  });

  it('signing up again with a subscribed address mails a link to the preferences, and the page says the same as for anyone', async () => {
    // Subscribed a while ago (the address just confirmed above is inside its mailbox's 10-minute window).
    const known = `kim.${device}@example.com`;
    await addActiveSubscriber(createFirestore({ projectId }), { email: known, keywords: ['svelte'] }, new Date(Date.now() - DAY));
    await page.goto(appUrl);
    await page.fill('input[name=email]', known);
    await page.fill('[name=keywords]', 'svelte');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Check your inbox').waitFor();
    const [manage] = await inbox(known);
    expect(manage.subject).toBe('Your Scout subscription');
    await lookAtEmail(manage, 'already-subscribed-email');
  });

  it('without JavaScript the form still works: the server answers with its own page', async () => {
    await page.goto(appUrl);
    await page.fill('input[name=email]', `bo.${device}@example.com`);
    await page.fill('[name=keywords]', `svelte, ${'x'.repeat(70)}`);
    // The form's own submission, as a browser without the script makes it (submit() fires no submit event).
    await Promise.all([
      page.waitForURL(`${appUrl}/api/signup`),
      page.evaluate(() => (document.querySelector('form.signup-form') as HTMLFormElement).submit()),
    ]);
    await page.waitForLoadState('load');
    expect(await page.getAttribute('[name=keywords]', 'aria-invalid')).toBe('true');
    await look('signup-errors-no-script');
  });

  it('every page and every email above: 0 axe-core violations in light and dark mode, 0 blocked scripts', () => {
    expect(violations).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
