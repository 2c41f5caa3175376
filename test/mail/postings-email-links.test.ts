import { describe, expect, it } from 'vitest';
import { composeDailyDigest, composeInstantAlert, composeWelcome, formatLocalMinute } from '../../lib/mail/compose-email';
import { alertSubject, digestSubject, welcomeSubject } from '../../lib/mail/email-subject';
import { describeNextDigest } from '../../lib/subscribers/describe-next-email';
import { verifyLinkToken } from '../../lib/subscribers/link-token';
import { berlinSubscriber, now, realisticItems, settings } from './email-fixtures';

/**
 * What every email of postings carries besides its cards: a subject and a preheader that do not
 * repeat each other, the subscriber's archive and Atom feed, times on their clock, and the same
 * links in the plain text as in the HTML.
 */
const subscriber = berlinSubscriber;
const EMAILS = {
  alert: () => composeInstantAlert({ subscriber, items: realisticItems(3), settings, now }),
  digest: () => composeDailyDigest({ subscriber, items: realisticItems(3), moreCount: 2, day: '2026-11-30', settings, now }),
  welcome: () => composeWelcome({ subscriber, items: realisticItems(3), windowDays: 7, nextEmail: 'Soon.', settings, now }),
};
const preheaderOf = (html: string) => html.match(/data-skip-in-text="true">([^<]*)/)?.[1] ?? '';
const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replaceAll('&amp;', '&'));

describe('emails of postings', () => {
  for (const [kind, compose] of Object.entries(EMAILS)) {
    it(`${kind}: links the subscriber's archive and their current Atom feed, in the HTML and the text`, async () => {
      const mail = await compose();
      const feed = hrefs(mail.html).find((href) => href.startsWith(`${settings.appUrl}/feed?token=`));
      const archive = hrefs(mail.html).find((href) => href.startsWith(`${settings.appUrl}/archive?token=`));
      expect(feed).toBeDefined();
      expect(archive).toBeDefined();
      const claims = verifyLinkToken(new URL(feed!).searchParams.get('token'), { secret: settings.linkSecret, purpose: 'feed', now });
      expect(claims).toMatchObject({ ok: true, claims: { uid: subscriber.id, version: subscriber.feedTokenVersion, linkVersion: 1 } });
      expect(mail.text).toContain(`Atom feed: ${feed}`);
      expect(mail.text).toContain(`Your archive: ${archive}`);
    });

    it(`${kind}: every link of the HTML is in the plain text`, async () => {
      const mail = await compose();
      for (const href of new Set(hrefs(mail.html))) expect(mail.text).toContain(href);
    });

    it(`${kind}: the preheader names the postings after the first, never the subject`, async () => {
      const mail = await compose();
      const preheader = preheaderOf(mail.html);
      expect(preheader).toMatch(/^Also: Staff Frontend Engineer, Design Systems · Full-Stack Developer/);
      expect(preheader).not.toContain('Senior React Engineer');
      expect(mail.subject).toContain('Senior React Engineer');
    });
  }

  it('subjects: the count and the best match, its employer and pay when they fit', async () => {
    const best = { title: 'Senior React Engineer', company: 'Acme', pay: '$120k–$150k' };
    expect((await EMAILS.alert()).subject).toBe('3 new: Senior React Engineer at Acme, $120k–$150k');
    expect((await EMAILS.alert()).subject).toBe(alertSubject(3, best));
    expect((await EMAILS.digest()).subject).toBe(digestSubject(5, best));
    expect((await EMAILS.welcome()).subject).toBe(welcomeSubject(3, best));
    expect((await EMAILS.welcome()).subject.startsWith('Welcome')).toBe(true);
  });

  it('times are on the subscriber’s clock, and UTC for one who chose no zone', async () => {
    const berlin = await EMAILS.alert();
    expect(berlin.html).toContain('30 Nov 2026, 08:00 CET');
    expect(berlin.text).toContain('30 Nov 2026, 08:00 CET');
    expect(berlin.html).not.toContain('UTC');
    const utc = await composeInstantAlert({ subscriber: { ...subscriber, timezone: 'UTC' }, items: realisticItems(1), settings, now });
    expect(utc.html).toContain('30 Nov 2026, 07:00 UTC');
    expect(formatLocalMinute(now, 'America/New_York')).toBe('30 Nov 2026, 03:00 GMT-5');
    expect(formatLocalMinute(now, 'Not/A_Zone')).toBe('30 Nov 2026, 08:00 UTC');
    expect(formatLocalMinute(now, undefined)).toBe('30 Nov 2026, 08:00 UTC');
  });

  it('a card shows three reasons and counts the rest, in the HTML and the text alike', async () => {
    const [item] = realisticItems(1);
    const reasons = Array.from({ length: 8 }, (_, i) => `“keyword${i}” in the title`);
    const mail = await composeInstantAlert({ subscriber, items: [{ ...item, reasons }], settings, now });
    const line = 'Why: “keyword0” in the title; “keyword1” in the title; “keyword2” in the title and 5 more';
    expect(mail.html).toContain(line);
    expect(mail.text).toContain(line);
  });

  it('a digest says when the next one comes, at the subscriber’s hour in their zone; UTC without one', async () => {
    const berlin = describeNextDigest(subscriber, now, 8);
    expect(berlin).toBe('Your next digest comes on Tuesday 1 December at 08:00 Europe/Berlin, with what Scout finds until then.');
    const digest = await composeDailyDigest({
      subscriber,
      items: realisticItems(2),
      moreCount: 0,
      day: '2026-11-30',
      nextDigest: berlin,
      settings,
      now,
    });
    expect(digest.html).toContain(berlin);
    expect(digest.text).toContain(berlin);
    const utc = { ...subscriber, timezone: 'UTC', digestHour: null };
    expect(describeNextDigest(utc, now, 8)).toBe(
      'Your next digest comes on Tuesday 1 December at 08:00 UTC, with what Scout finds until then.',
    );
    // No longer on digests (their queue flushed one last time): no line rather than a wrong one.
    expect(describeNextDigest({ ...subscriber, mode: 'instant' }, now, 8)).toBeNull();
  });
});
