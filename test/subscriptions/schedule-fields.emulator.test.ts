import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleSignupRequest } from '../../lib/subscriptions/handle-signup-request';
import { handlePreferencesRequest } from '../../lib/subscriptions/handle-preferences-request';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';

/**
 * The schedule on the forms: time zone, digest hour, weekdays and the weekly day, and
 * the four cadences, posted by the plain forms (no script: repeated `weekdays` checkboxes, every
 * value a string), each error next to its own control, and the preferences page saying in words
 * what the subscriber gets.
 */
const NOW = new Date('2026-11-30T06:00:00Z');
const ADA = 'ada@example.com';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

/** A form post as a browser sends it: repeated names for a checkbox group. */
const formBody = (fields: [string, string][]) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function signupForm(fields: [string, string][]) {
  const request = new Request(`${h.config.APP_URL}/api/signup`, { method: 'POST', headers: FORM, body: formBody(fields) });
  const response = await handleSignupRequest(request, { ...h.deps, now: NOW });
  return { status: response.status, html: await response.text() };
}

async function preferences(uid: string, fields?: [string, string][]) {
  const url = preferencesUrl({ appUrl: h.config.APP_URL, uid, secret: h.config.LINK_SECRET, issuedAt: NOW });
  const init = fields ? { method: 'POST', headers: FORM, body: formBody(fields) } : {};
  const response = await handlePreferencesRequest(new Request(url, init), { db: h.db, config: h.config, now: NOW });
  return { status: response.status, html: await response.text() };
}

const tag = (html: string, element: string, id: string) => html.match(new RegExp(`<${element}\\b[^>]*\\bid="${id}"[^>]*>`))?.[0] ?? '';
const selected = (html: string, selectId: string) => {
  const select = html.match(new RegExp(`<select\\b[^>]*\\bid="${selectId}"[^>]*>([\\s\\S]*?)</select>`))?.[1] ?? '';
  return select.match(/<option value="([^"]*)" selected="">/)?.[1];
};
const checkedDays = (html: string, prefix: string) =>
  [...html.matchAll(new RegExp(`<input[^>]*id="${prefix}-(\\w+)"[^>]*>`, 'g'))].filter((m) => m[0].includes('checked=""')).map((m) => m[1]);

describe('the signup form posts the schedule', () => {
  it('zone, hour, weekdays (one checkbox each) and weekly day are stored as chosen', async () => {
    const sent = await signupForm([
      ['email', ADA],
      ['keywords', 'react'],
      ['mode', 'daily'],
      ['timezone', 'America/New_York'],
      ['digestHour', '9'],
      ['weekdays', 'mon'],
      ['weekdays', 'wed'],
      ['weekdays', 'fri'],
      ['weeklyDay', 'thu'],
    ]);
    expect(sent.status).toBe(202);
    const user = (await h.db.collection('users').doc(subscriberId(ADA)).get()).data();
    expect(user).toMatchObject({
      mode: 'daily',
      timezone: 'America/New_York',
      digestHour: 9,
      weekdays: ['mon', 'wed', 'fri'],
      weeklyDay: 'thu',
    });
  });

  it('the hour left at "Default" follows DIGEST_HOUR_UTC (stored as null); feed is a cadence of its own', async () => {
    const sent = await signupForm([
      ['email', ADA],
      ['keywords', 'react'],
      ['mode', 'feed'],
      ['timezone', 'UTC'],
      ['digestHour', ''],
    ]);
    expect(sent.status).toBe(202);
    expect((await h.db.collection('users').doc(subscriberId(ADA)).get()).data()).toMatchObject({ mode: 'feed', digestHour: null });
  });

  it('a bad zone and hour: 400, each message next to its own select, everything else as typed', async () => {
    const page = await signupForm([
      ['email', ADA],
      ['keywords', 'react'],
      ['mode', 'weekly'],
      ['timezone', 'Mars/Olympus_Mons'],
      ['digestHour', '24'],
      ['weekdays', 'sat'],
      ['weeklyDay', 'fri'],
    ]);
    expect(page.status).toBe(400);
    expect(page.html).toMatch(/<p id="signup-timezone-error" class="field-error">.*Must be a time zone name, like Europe\/Berlin<\/p>/);
    expect(page.html).toMatch(/<p id="signup-digestHour-error" class="field-error">.*Must be an hour from 0 to 23<\/p>/);
    expect(tag(page.html, 'select', 'signup-timezone')).toContain('aria-invalid="true"');
    expect(tag(page.html, 'select', 'signup-timezone')).toMatch(/aria-describedby="signup-timezone-hint signup-timezone-error"/);
    expect(tag(page.html, 'select', 'signup-digestHour')).toContain('aria-invalid="true"');
    // The first control in error takes focus; the typed zone is offered, selected, so the person sees what they sent.
    expect(tag(page.html, 'select', 'signup-timezone')).toContain('autofocus');
    expect(selected(page.html, 'signup-timezone')).toBe('Mars/Olympus_Mons');
    expect(selected(page.html, 'signup-weeklyDay')).toBe('fri');
    expect(checkedDays(page.html, 'signup-weekdays')).toEqual(['sat']);
    expect(tag(page.html, 'input', 'signup-mode-weekly')).toContain('checked=""');
    expect((await h.db.collection('users').get()).size).toBe(0);
  });

  it('the form offers the four cadences, the runtime’s zones with UTC first, 24 hours and a default, and the seven days', async () => {
    const page = await signupForm([['email', '']]);
    for (const mode of ['instant', 'daily', 'weekly', 'feed']) expect(page.html).toContain(`id="signup-mode-${mode}"`);
    const zones = [...page.html.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]).filter((v) => v.includes('/') || v === 'UTC');
    expect(zones[0]).toBe('UTC');
    expect(zones).toEqual(expect.arrayContaining(['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe']));
    expect(page.html).toContain('<option value="" selected="">Default, 08:00</option>');
    expect(page.html).toContain('<option value="23">23:00</option>');
    expect(checkedDays(page.html, 'signup-weekdays')).toEqual([]);
    // Each control sits in the field its cadences show (scout.css hides the rest by the checked mode).
    expect(page.html).toMatch(/<div class="field for-digest"><label for="signup-timezone">/);
    expect(page.html).toMatch(/<fieldset class="field for-daily"><legend>Days a digest may come<\/legend>/);
    expect(page.html).toMatch(/<div class="field for-weekly"><label for="signup-weeklyDay">/);
  });
});

describe('the preferences form shows and saves the schedule', () => {
  it('shows what is stored, selected and checked, and says it in words', async () => {
    const uid = await h.subscribe({
      email: ADA,
      keywords: ['react'],
      mode: 'daily',
      timezone: 'America/New_York',
      digestHour: 9,
      weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'],
    });
    const page = await preferences(uid);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Scout sends you one digest of the best matches at 09:00 America/New_York, Mon–Fri.');
    expect(tag(page.html, 'input', 'mode-daily')).toContain('checked=""');
    expect(selected(page.html, 'timezone')).toBe('America/New_York');
    expect(selected(page.html, 'digestHour')).toBe('9');
    expect(checkedDays(page.html, 'weekdays')).toEqual(['mon', 'tue', 'wed', 'thu', 'fri']);
    expect(selected(page.html, 'weeklyDay')).toBe('mon');
  });

  it('saves a weekly digest on Friday at 07:00 Berlin time and says so', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'instant' });
    const page = await preferences(uid, [
      ['action', 'save'],
      ['keywords', 'react'],
      ['excludes', ''],
      ['minBudget', ''],
      ['mode', 'weekly'],
      ['timezone', 'Europe/Berlin'],
      ['digestHour', '7'],
      ['weekdays', 'mon'],
      ['weeklyDay', 'fri'],
    ]);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Saved.');
    expect(page.html).toContain('Scout sends you one weekly digest of the best matches, Fridays at 07:00 Europe/Berlin.');
    expect((await h.db.collection('users').doc(uid).get()).data()).toMatchObject({
      mode: 'weekly',
      timezone: 'Europe/Berlin',
      digestHour: 7,
      weekdays: ['mon'],
      weeklyDay: 'fri',
    });
  });

  it('a bad hour: 400, the summary links to the hour select, the message sits above it', async () => {
    const uid = await h.subscribe({ email: ADA, keywords: ['react'], mode: 'daily' });
    const page = await preferences(uid, [
      ['action', 'save'],
      ['keywords', 'react'],
      ['mode', 'daily'],
      ['digestHour', '-1'],
    ]);
    expect(page.status).toBe(400);
    expect(page.html).toContain('<a href="#digestHour">Digest hour (your time): must be an hour from 0 to 23</a>');
    expect(page.html).toMatch(/<p class="field-error" id="digestHour-error">.*must be an hour from 0 to 23<\/p><select id="digestHour"/);
    expect(tag(page.html, 'select', 'digestHour')).toContain('aria-invalid="true"');
  });
});
