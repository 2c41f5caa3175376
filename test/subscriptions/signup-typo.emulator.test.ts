import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { postSignup } from './signup-fixture';

/**
 * A signup whose address looks like a typo of a big provider's is not silently accepted: the answer
 * names the suggestion and nothing is written, counted or sent until the visitor says which address
 * they meant (`confirmedEmail`): the suggestion, or what they typed, "anyway".
 */
const NOW = new Date('2026-11-30T06:00:00Z');
const SIGNUP = { keywords: 'react', mode: 'instant' };
let h: Harness;

beforeEach(async () => {
  h = await createHarness({ TRUSTED_PROXY_HOPS: '1' });
});
afterEach(async () => h.close());

const nothingWritten = async () =>
  expect(await h.dump(['users', 'emails', 'rateLimits'])).toEqual({ users: {}, emails: {}, rateLimits: {} });

describe('POST /api/signup with an address that looks like a typo', () => {
  it.each([
    ['new.person@gmial.con', 'new.person@gmail.com'],
    ['ada@hotmial.com', 'ada@hotmail.com'],
    ['ada@yaho.com', 'ada@yahoo.com'],
    ['ada@outlok.com', 'ada@outlook.com'],
  ])('JSON: %s is answered 400 with %s; nothing written, counted or sent', async (typed, meant) => {
    const sent = await postSignup(h, { email: typed, ...SIGNUP }, { now: NOW });
    expect(sent.status).toBe(400);
    expect(sent.json).toEqual({ error: 'check the email address', fields: { email: `did you mean ${meant}?` }, emailSuggestion: meant });
    await nothingWritten();
    expect(await h.inbox()).toHaveLength(0);
  });

  it('a correct rare domain is signed up at once', async () => {
    const sent = await postSignup(h, { email: 'ada@fastmail.fm', ...SIGNUP }, { now: NOW });
    expect(sent.status).toBe(202);
    expect(await h.inbox('ada@fastmail.fm')).toHaveLength(1);
  });

  it('confirming the suggestion signs up the suggested address, not the typed one', async () => {
    const sent = await postSignup(h, { email: 'new.person@gmial.con', confirmedEmail: 'new.person@gmail.com', ...SIGNUP }, { now: NOW });
    expect(sent.status).toBe(202);
    expect((await h.db.collection('users').doc(subscriberId('new.person@gmail.com')).get()).get('status')).toBe('pending');
    expect((await h.db.collection('users').doc(subscriberId('new.person@gmial.con')).get()).exists).toBe(false);
    expect((await h.inbox()).map((m) => m.to)).toEqual([['new.person@gmail.com']]);
  });

  it('"use it anyway": the typed address, confirmed, is signed up as typed', async () => {
    const sent = await postSignup(h, { email: 'ada@yaho.com', confirmedEmail: 'ada@yaho.com', ...SIGNUP }, { now: NOW });
    expect(sent.status).toBe(202);
    expect((await h.db.collection('users').doc(subscriberId('ada@yaho.com')).get()).get('email')).toBe('ada@yaho.com');
  });

  it('a confirmed address is still validated as an address, its error reported as the email field’s', async () => {
    const sent = await postSignup(h, { email: 'ada@yaho.com', confirmedEmail: 'not an address', ...SIGNUP }, { now: NOW });
    expect(sent.status).toBe(400);
    expect(sent.json.fields).toEqual({ email: 'must be an email address' });
    await nothingWritten();
  });

  it('the form without a script: the form again with the question and two buttons, everything else as typed; each button signs up its address', async () => {
    const sent = await postSignup(
      h,
      { email: 'new.person@gmial.con', keywords: 'react, svelte', minHourly: '45', mode: 'daily' },
      { now: NOW, form: true },
    );
    expect(sent.status).toBe(400);
    const page = sent.html;
    expect(page).toContain('Did you mean <strong>new.person@gmail.com</strong>?');
    expect(page).toMatch(/<input[^>]*id="signup-email"[^>]*aria-invalid="true"/);
    expect(page).toMatch(/<input[^>]*id="signup-email"[^>]*aria-describedby="signup-email-error"/);
    expect(page).toMatch(
      /<button(?=[^>]*name="confirmedEmail")(?=[^>]*value="new.person@gmail.com")[^>]*>Use new.person@gmail.com<\/button>/,
    );
    expect(page).toMatch(
      /<button(?=[^>]*name="confirmedEmail")(?=[^>]*value="new.person@gmial.con")[^>]*>Use new.person@gmial.con anyway<\/button>/,
    );
    expect(page).toMatch(/<input[^>]*name="minHourly"[^>]*value="45"/);
    expect(page).toContain('react, svelte');
    await nothingWritten();

    // The browser sends the form with the pressed button's name and value.
    const chosen = await postSignup(
      h,
      { email: 'new.person@gmial.con', keywords: 'react, svelte', minHourly: '45', mode: 'daily', confirmedEmail: 'new.person@gmail.com' },
      { now: NOW, form: true },
    );
    expect(chosen.status).toBe(202);
    expect(chosen.html).toContain('<strong class="signup-address">new.person@gmail.com</strong>');
    expect((await h.db.collection('users').doc(subscriberId('new.person@gmail.com')).get()).data()).toMatchObject({
      keywords: ['react', 'svelte'],
      minPay: { hourly: { amount: 45, currency: 'USD' } },
    });
  });
});
