import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness';
import { postSignup } from './signup-fixture';

/**
 * The signup form refuses cross-site posts, by the same Origin rule as the
 * ops page. A browser always sends Origin on a POST; a client with none (curl, a script) is not a
 * cross-site page and may use the JSON API.
 */
const NOW = new Date('2026-11-30T06:00:00Z');
const SIGNUP = { email: 'ada@example.com', keywords: 'react', mode: 'instant' };
const STORE = ['users', 'emails', 'rateLimits'];

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const empty = { users: {}, emails: {}, rateLimits: {} };

describe('POST /api/signup from another site', () => {
  const crossSite: Record<string, Record<string, string>> = {
    'Origin of another site': { origin: 'https://evil.example' },
    'Origin of another port on our host': { origin: 'http://localhost:3001' },
    'Origin of another site, even claiming same-origin': { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    'Origin: null without Sec-Fetch-Site': { origin: 'null' },
    'Origin: null from a cross-site page': { origin: 'null', 'sec-fetch-site': 'cross-site' },
    'no Origin but Sec-Fetch-Site: cross-site': { 'sec-fetch-site': 'cross-site' },
    'no Origin but Sec-Fetch-Site: same-site': { 'sec-fetch-site': 'same-site' },
  };

  it.each(Object.keys(crossSite))('%s: a form post gets 403 and a page; nothing is written or sent', async (name) => {
    const sent = await postSignup(h, SIGNUP, { now: NOW, form: true, headers: crossSite[name] });
    expect(sent.status).toBe(403);
    expect(sent.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(sent.html).toContain('This form was not sent from Scout');
    expect(await h.dump(STORE)).toEqual(empty);
    expect(await h.inbox()).toHaveLength(0);
  });

  it.each(Object.keys(crossSite))('%s: a JSON post gets 403 naming the origin; nothing is written or sent', async (name) => {
    const sent = await postSignup(h, SIGNUP, { now: NOW, headers: crossSite[name] });
    expect(sent.status).toBe(403);
    expect(sent.json).toEqual({
      error: 'cross-site request refused: post the signup from Scout’s own page (Origin must be the app’s own)',
    });
    expect(await h.dump(STORE)).toEqual(empty);
    expect(await h.inbox()).toHaveLength(0);
  });
});

describe('POST /api/signup from our own page or a non-browser client', () => {
  const allowed: Record<string, Record<string, string>> = {
    'our own Origin (the landing page’s script)': { origin: 'http://localhost:3000' },
    'Origin: null with Sec-Fetch-Site: same-origin (the form on our no-referrer page)': { origin: 'null', 'sec-fetch-site': 'same-origin' },
    'no Origin and no Sec-Fetch-Site (curl, a script)': {},
  };

  it.each(Object.keys(allowed))('%s: accepted', async (name) => {
    const json = await postSignup(h, SIGNUP, { now: NOW, headers: allowed[name] });
    expect(json.status).toBe(202);
    const form = await postSignup(h, { ...SIGNUP, email: 'bea@example.com' }, { now: NOW, form: true, headers: allowed[name] });
    expect(form.status).toBe(202);
    expect((await h.db.collection('users').get()).size).toBe(2);
  });
});
