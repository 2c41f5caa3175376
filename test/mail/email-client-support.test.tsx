import { DoIUseEmail } from '@jsx-email/doiuse-email';
import { describe, expect, it } from 'vitest';
import { composeConfirmation, composeManageLink } from '../../lib/mail/compose-account-email';
import { composeDailyDigest, composeInstantAlert, composeWelcome } from '../../lib/mail/compose-email';
import { berlinSubscriber, now, realisticItems, settings } from './email-fixtures';

/**
 * Every email Scout sends, rendered with realistic data and checked against caniemail's support
 * data (through @jsx-email/doiuse-email) for the clients most subscribers read in: Gmail on the web,
 * Android and iOS, Apple Mail on macOS and iOS, and Outlook.com.
 *
 * Outlook for Windows (the desktop client, Word's renderer) is left out: it supports no padding on
 * links, no border-radius, no max-width and no `display`, so every email that is not built of
 * nested fixed-width tables fails it; Scout's emails degrade there to plain underlined links and
 * full-width text, which still read and click.
 */
const CLIENTS = ['gmail.desktop-webmail', 'gmail.mobile-webmail', 'gmail.android', 'gmail.ios', 'apple-mail.macos', 'apple-mail.ios'];
/** In caniemail's data, but not in the package's list of client names, so it is added to the checker by hand. */
const OUTLOOK_COM = 'outlook.outlook-com';

/**
 * Accepted, with the reason. Each entry is one message doiuse-email reports as unsupported.
 * react-email's <Preview> hides the preheader with `display:none` and `opacity:0`; Gmail's mobile
 * web client ignores both and shows the preheader as the first line of the body. It is the titles
 * after the first, so the reader sees a useful line, not junk; no other client checked shows it.
 */
const ACCEPTED = new Set([
  '`display:none` is not supported by `gmail.mobile-webmail`',
  '`opacity` is not supported by `gmail.mobile-webmail`',
]);

function unsupported(html: string): string[] {
  const checker = new DoIUseEmail({ emailClients: CLIENTS });
  (checker.emailClients as string[]).push(OUTLOOK_COM);
  const result = checker.check(html);
  return result.success ? [] : [...new Set(result.errors)].filter((error) => !ACCEPTED.has(error));
}

const subscriber = berlinSubscriber;
const EMAILS: [string, () => Promise<{ html: string }>][] = [
  ['instant alert of one posting', () => composeInstantAlert({ subscriber, items: realisticItems(1), settings, now })],
  ['instant alert of five postings', () => composeInstantAlert({ subscriber, items: realisticItems(5), settings, now })],
  [
    'daily digest of twenty postings, its near-miss and sources lines',
    () =>
      composeDailyDigest({
        subscriber,
        items: realisticItems(20),
        moreCount: 4,
        day: '2026-11-30',
        filteredOut: { underMinBudget: 2, excluded: 1, notAFit: 1, minPay: subscriber.minPay },
        coverage: { postings: 412, sources: 6, unreachable: 1, unreachableSince: new Date('2026-11-27T10:00:00Z') },
        nextDigest: 'Your next digest comes on Tuesday 1 December at 08:00 Europe/Berlin, with what Scout finds until then.',
        settings,
        now,
      }),
  ],
  [
    'welcome',
    () =>
      composeWelcome({
        subscriber,
        items: realisticItems(5),
        windowDays: 7,
        nextEmail: 'Your next digest comes on Tuesday 1 December at 08:00 Europe/Berlin, with what Scout finds until then.',
        settings,
        now,
      }),
  ],
  ['confirmation', () => composeConfirmation({ subscriber, nonce: 'n'.repeat(22), settings, now })],
  ['already subscribed', () => composeManageLink({ subscriber, settings, now })],
];

describe('every email uses only what Gmail, Apple Mail and Outlook.com support (caniemail)', () => {
  for (const [name, compose] of EMAILS) {
    it(name, async () => {
      const { html } = await compose();
      expect(unsupported(html)).toEqual([]);
    });
  }

  it('the check finds what those clients drop (a flex layout, a <style> with :hover)', () => {
    const html = '<html><head><style>a:hover{color:red}</style></head><body><div style="display:flex">x</div></body></html>';
    expect(unsupported(html).length).toBeGreaterThan(0);
  });
});
