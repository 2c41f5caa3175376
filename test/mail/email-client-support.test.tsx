import { DoIUseEmail } from '@jsx-email/doiuse-email';
import { describe, expect, it } from 'vitest';
import { composeInstantAlert } from '../../lib/mail/compose-email';
import { berlinSubscriber, everyEmail, now, realisticItems, settings } from './email-fixtures';

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

const EMAILS: [string, () => Promise<{ html: string }>][] = [
  ['alert of one posting', () => composeInstantAlert({ subscriber: berlinSubscriber, items: realisticItems(1), settings, now })],
  ...everyEmail(),
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
