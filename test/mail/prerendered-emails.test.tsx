import { render } from '@react-email/render';
import { describe, expect, it } from 'vitest';
import { renderDailyDigest, renderInstantAlert } from '../../lib/mail/prerendered-emails';
import { DailyDigestEmail, type DailyDigestProps } from '../../lib/mail/templates/daily-digest';
import type { EmailItem } from '../../lib/mail/templates/email-item';
import { InstantAlertEmail, type InstantAlertProps } from '../../lib/mail/templates/instant-alert';
import { HOSTILE_TEXTS as HOSTILE } from '../support/hostile-texts';
import { seededRandom } from '../support/seeded-random';

/**
 * The prerendered emails are only allowed to be faster: for every input, the HTML must be byte for
 * byte what React Email's render() writes. Generated inputs cover every optional field present,
 * absent and empty, and the values feeds and subscribers can send: markup, entities, quotes,
 * `javascript:` URLs (React blocks them), emoji and half an emoji, right-to-left text, control
 * characters, very long strings.
 */

function generator(seed: number) {
  const r = seededRandom(seed);
  const text = () => (r.chance(0.5) ? r.pick(HOSTILE) : `Posting ${r.int(0, 9999)} — React/Node`);
  const maybe = <T,>(value: () => T): T | null | undefined => (r.chance(0.15) ? null : r.chance(0.1) ? undefined : value());
  const url = () => r.pick([`https://jobs.example.com/${r.int(0, 99)}`, r.pick(HOSTILE), 'javascript:void(0)', '']);
  const item = (): EmailItem => ({
    title: text(),
    url: maybe(url) ?? null,
    employer: maybe(text),
    budget: maybe(text) ?? null,
    published: maybe(text) ?? null,
    excerpt: r.chance(0.2) ? '' : text(),
    reasons: Array.from({ length: r.int(0, 3) }, text),
    score: r.int(0, 100),
    fit: r.chance(0.5) ? r.int(0, 100) : r.chance(0.5) ? null : undefined,
    fitReason: maybe(text),
    seenOn: r.chance(0.3) ? undefined : Array.from({ length: r.int(0, 3) }, () => ({ label: text(), url: maybe(url) ?? null })),
    history: maybe(text),
    notAFitUrl: maybe(url),
  });
  const footer = () => ({
    unsubscribeUrl: url() || 'https://scout.example.com/u',
    preferencesUrl: maybe(url),
    archiveUrl: maybe(url),
    feedUrl: maybe(url),
  });
  return {
    digest: (): DailyDigestProps => ({
      dayLabel: r.chance(0.8) ? 'Wednesday 2 December' : text(),
      items: Array.from({ length: r.int(0, 6) }, item),
      moreCount: r.pick([0, 1, 2, 37]),
      footer: footer(),
      note: maybe(text),
      nearMiss: maybe(text),
      nextDigest: maybe(text),
      sourcesLine: maybe(text),
    }),
    alert: (): InstantAlertProps => ({ items: Array.from({ length: r.int(1, 5) }, item), footer: footer(), note: maybe(text) }),
  };
}

describe('prerendered emails render what React Email renders, byte for byte', () => {
  it('daily and weekly digests, 300 generated inputs with hostile values', async () => {
    const g = generator(17_2026);
    for (let n = 0; n < 300; n++) {
      const props = g.digest();
      expect(await renderDailyDigest(props), `input ${n}: ${JSON.stringify(props).slice(0, 400)}`).toBe(
        await render(<DailyDigestEmail {...props} />),
      );
    }
  });

  it('instant alerts, 300 generated inputs with hostile values', async () => {
    const g = generator(18_2026);
    for (let n = 0; n < 300; n++) {
      const props = g.alert();
      expect(await renderInstantAlert(props), `input ${n}: ${JSON.stringify(props).slice(0, 400)}`).toBe(
        await render(<InstantAlertEmail {...props} />),
      );
    }
  });

  it('a preheader over the preview’s 150 characters, and one that cuts an emoji in half at 150', async () => {
    const base: InstantAlertProps = {
      items: [{ title: 'The title', url: null, budget: null, published: null, excerpt: '', reasons: [], score: 1 }],
      footer: { unsubscribeUrl: 'https://scout.example.com/u' },
    };
    // One posting's preheader is its excerpt: as long as a card's, and cut by the preview at 150.
    for (const excerpt of ['y'.repeat(200), `${'z'.repeat(148)}🚀🚀`, '🚀'.repeat(100)]) {
      const props = { ...base, items: [{ ...base.items[0], excerpt }] };
      expect(await renderInstantAlert(props)).toBe(await render(<InstantAlertEmail {...props} />));
    }
    // Several postings': the next titles, each cut to a line's worth.
    const several = { ...base, items: ['🚀'.repeat(100), 'x'.repeat(300), '<b>&amp;</b>'].map((title) => ({ ...base.items[0], title })) };
    expect(await renderInstantAlert(several)).toBe(await render(<InstantAlertEmail {...several} />));
  });
});
