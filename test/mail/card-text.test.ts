import { describe, expect, it } from 'vitest';
import { readFeed } from '../../lib/feeds/parse-feed';
import { composeInstantAlert, type CardPosting, type MailSettings } from '../../lib/mail/compose-email';
import type { Subscriber } from '../../lib/subscribers/subscriber';
import { readSampleFeed } from '../../scripts/sample-feed/server';
import { SCRIPT_TITLE } from '../support/hostile-sources';

/**
 * An email's card is cleaned from the data that feeds it (lib/feeds/clean-posting-text.ts): the
 * bundled sample feed, written in Upwork's job feed format, served from 127.0.0.1 as the product
 * review saw it.
 */

const now = new Date('2026-11-30T06:00:00Z');
const settings: MailSettings = { appUrl: 'https://scout.example.com', from: 'Scout <alerts@scout.test>', linkSecret: 'l'.repeat(44) };
const subscriber: Pick<Subscriber, 'id' | 'email' | 'feedTokenVersion' | 'linkVersion'> & { keywords: string[] } = {
  id: 'dWlk',
  email: 'ada@example.com',
  keywords: ['next.js'],
};

async function samplePosting(): Promise<CardPosting> {
  const [posting] = readFeed(await readSampleFeed(), { source: 'sample', baseUrl: 'http://127.0.0.1:3030/sample.xml' }).postings;
  return { ...posting, sightings: [{ source: 'sample', label: 'Gigboard', url: posting.url, seenAt: now }] };
}

const alertOf = (posting: CardPosting) =>
  composeInstantAlert({ subscriber, items: [{ posting, score: 85, reasons: ['“next.js” in the title'] }], settings, now });

describe('a posting card in an email', () => {
  it('names the board, shows the role alone, its pay and place, and text without the feed’s labels or "click to apply"', async () => {
    const posting = await samplePosting();
    // A posting stored before its feed's name was known still carries the site suffix.
    const mail = await alertOf({ ...posting, title: `${posting.title} - Gigboard` });
    for (const body of [mail.html, mail.text]) {
      expect(body).toContain('Next.js 15 developer to build SaaS analytics dashboard');
      expect(body).not.toContain('- Gigboard');
      expect(body).not.toMatch(/Posted On|Category:|Country:|click to apply/);
      expect(body).toContain('Client in United States');
      expect(body).toContain('$2,500 fixed');
      expect(body).toContain('We are a seed-stage analytics startup');
    }
    expect(mail.text).toContain('Seen on Gigboard <https://jobs.example.com/jobs/');
    expect(mail.text).not.toContain('127.0.0.1');
  });

  it('still escapes a hostile title and text once cleaned', async () => {
    const posting = await samplePosting();
    const mail = await alertOf({
      ...posting,
      title: `${SCRIPT_TITLE} - Gigboard`,
      description: '<img src=x onerror=alert(1)> Next.js work. Budget: $1 Posted On: today Category: <script>x</script> click to apply',
    });
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt; Next.js work.');
    expect(mail.html).not.toContain('Posted On');
  });
});
