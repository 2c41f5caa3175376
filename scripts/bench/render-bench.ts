/**
 * npm run bench:render — what one email's HTML costs: React Email's render() against the slot
 * templates (lib/mail/prerendered-emails.tsx) that replace it, for a 5-item alert and a 20-item digest,
 * each email different (its own postings, reasons, links), as a flush composes them. Prints the
 * median ms per email of each, over --repeats rounds of --emails emails, and the speed-up. The
 * first email of each shape compiles its template; it is counted in the figures.
 *
 *   npm run bench:render
 *   npm run bench:render -- --emails 2000 --repeats 5
 *   npm run bench:render -- --json          one line of JSON (RenderFigures): `npm run bench` runs it so
 */
import { parseArgs } from 'node:util';
import { createElement } from 'react';
import { render } from '@react-email/render';
import { renderDailyDigest, renderInstantAlert } from '../../lib/mail/prerendered-emails';
import { DailyDigestEmail, type DailyDigestProps } from '../../lib/mail/templates/daily-digest';
import type { EmailItem } from '../../lib/mail/templates/email-item';
import { InstantAlertEmail, type InstantAlertProps } from '../../lib/mail/templates/instant-alert';
import type { RenderFigures } from './bench-result';

const { values } = parseArgs({
  options: {
    emails: { type: 'string', default: '1000' },
    repeats: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const EMAILS = Number(values.emails);
const REPEATS = Number(values.repeats);

/** A posting pool the size of the bench's J=500, shown to many subscribers with their own reasons and links. */
const POOL = 500;
function item(n: number, reader: number): EmailItem {
  const job = n % POOL;
  return {
    title: `Senior ${['React', 'Go', 'Rust', 'Python'][job % 4]} engineer #${job} — remote & async`,
    url: `https://jobs.example.com/${job}`,
    employer: job % 3 === 0 ? `Acme ${job} · Berlin · remote` : null,
    budget: job % 2 === 0 ? `$${40 + (job % 60)}/hour` : null,
    published: `2 Dec 2026, ${String(job % 24).padStart(2, '0')}:10 UTC`,
    excerpt: `We are hiring for posting ${job}: build <things> with "care" and ship weekly. `.repeat(3),
    reasons: [`“${['react', 'go', 'rust', 'python'][job % 4]}” in the title`, ...(reader % 2 === 0 ? ['“remote” in the text'] : [])],
    score: 40 + (job % 60),
    fit: job % 5 === 0 ? 70 + (job % 30) : null,
    fitReason: job % 5 === 0 ? 'Matches the stack they asked for.' : null,
    seenOn: [{ label: 'Remotive', url: `https://remotive.com/job/${job}` }],
    history: job % 7 === 0 ? 'reposted; first seen 9 days ago' : null,
    notAFitUrl: `https://scout.example.com/not-a-fit?token=${reader}.${job}.${'s'.repeat(40)}`,
  };
}
const footer = (reader: number) => ({
  unsubscribeUrl: `https://scout.example.com/unsubscribe?token=${reader}.${'u'.repeat(60)}`,
  preferencesUrl: `https://scout.example.com/preferences?token=${reader}.${'p'.repeat(60)}`,
  archiveUrl: `https://scout.example.com/archive?token=${reader}.${'a'.repeat(60)}`,
});
const alert = (reader: number): InstantAlertProps => ({
  items: Array.from({ length: 5 }, (_, i) => item(reader * 7 + i, reader)),
  footer: footer(reader),
});
const digest = (reader: number): DailyDigestProps => ({
  dayLabel: 'Wednesday 2 December',
  items: Array.from({ length: 20 }, (_, i) => item(reader * 13 + i, reader)),
  moreCount: reader % 4 === 0 ? 0 : 1 + (reader % 40),
  footer: footer(reader),
  sourcesLine: 'Checked 412 postings from 6 sources.',
});

async function perEmailMs(emails: number, one: (reader: number) => Promise<string>): Promise<number> {
  const started = performance.now();
  for (let reader = 0; reader < emails; reader++) await one(reader);
  return (performance.now() - started) / emails;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(name: string, react: (r: number) => Promise<string>, slots: (r: number) => Promise<string>) {
  const reactRuns: number[] = [];
  const slotRuns: number[] = [];
  // React is measured on a tenth of the emails: it is the slow one, and its cost per email is flat.
  for (let i = 0; i < REPEATS; i++) {
    reactRuns.push(await perEmailMs(Math.max(50, Math.floor(EMAILS / 10)), react));
    slotRuns.push(await perEmailMs(EMAILS, slots));
  }
  const r = median(reactRuns);
  const s = median(slotRuns);
  return { name, reactMs: r, slotMs: s, speedup: r / s };
}

const results = [
  await measure(
    '5-item alert',
    (r) => render(createElement(InstantAlertEmail, alert(r))),
    (r) => renderInstantAlert(alert(r)),
  ),
  await measure(
    '20-item digest',
    (r) => render(createElement(DailyDigestEmail, digest(r))),
    (r) => renderDailyDigest(digest(r)),
  ),
];
if (values.json) console.log(JSON.stringify({ emails: EMAILS, repeats: REPEATS, results } satisfies RenderFigures));
else {
  console.log(`render, ms per email (median of ${REPEATS} rounds; ${EMAILS} emails a round for the prerendered emails):`);
  console.log('email            render()   prerendered emails   speed-up');
  for (const x of results)
    console.log(
      `${x.name.padEnd(16)} ${x.reactMs.toFixed(3).padStart(8)}   ${x.slotMs.toFixed(3).padStart(14)}   ${x.speedup.toFixed(1).padStart(7)}×`,
    );
}
