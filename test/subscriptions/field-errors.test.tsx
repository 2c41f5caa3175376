import { readFile } from 'node:fs/promises';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SignupFormView } from '../../lib/subscriptions/signup-form';
import { emptySignupValues } from '../../lib/subscriptions/signup-form-values';
import { PreferencesFormView, type PreferenceFormValues } from '../../lib/subscriptions/preferences-page';
import { signupFields, type SignupFieldErrors } from '../../lib/subscribers/signup-schema';
import { preferenceFields, type PreferenceFieldErrors } from '../../lib/subscribers/preferences-schema';

/**
 * Every field that shows an error is marked invalid (aria-invalid, and the error among what
 * describes it), and the stylesheet gives every invalid field one red border, in the signup form
 * and the preferences form alike.
 */

/** The controls marked invalid, by the error they are described by. */
function invalidControls(html: string): { tag: string; describedBy: string }[] {
  return [...html.matchAll(/<(input|select|textarea)\b[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => tag.includes('aria-invalid="true"'))
    .map((tag) => ({ tag, describedBy: /aria-describedby="([^"]*)"/.exec(tag)?.[1] ?? '' }));
}

/** Each error message on the page has a control that is invalid and described by it. */
function expectEveryErrorOnAnInvalidControl(html: string) {
  const errorIds = [...html.matchAll(/<p (?:class="field-error" )?id="([^"]+-error)"/g)].map((m) => m[1]);
  expect(errorIds.length).toBeGreaterThan(0);
  const controls = invalidControls(html);
  for (const errorId of errorIds)
    expect(
      controls.some((c) => c.describedBy.split(' ').includes(errorId)),
      errorId,
    ).toBe(true);
  return errorIds;
}

const signupForm = (errors: SignupFieldErrors) =>
  renderToStaticMarkup(<SignupFormView values={emptySignupValues} errors={errors} timeZones={['UTC']} defaultDigestHour={8} askAbout />);

const preferenceValues = Object.fromEntries(preferenceFields.map((f) => [f, ''])) as PreferenceFormValues;
const preferencesForm = (errors: PreferenceFieldErrors) =>
  renderToStaticMarkup(
    <PreferencesFormView
      token="t"
      maskedEmail={null}
      subscriberStatus="active"
      values={{ ...preferenceValues, mode: 'daily', timezone: 'UTC', weekdays: 'mon', weeklyDay: 'mon', minCurrency: 'USD' }}
      errors={errors}
      cadence="daily"
      unsubscribeLink="/unsubscribe?token=t"
      digestHourUtc={8}
      aiEnabled
    />,
  );

describe('every invalid field is marked so, in both forms', () => {
  it('signup: an invalid minimum budget (an old form’s field) marks the fixed minimum, message and all', () => {
    const html = signupForm({ minBudget: 'enter a number' });
    const [errorId] = expectEveryErrorOnAnInvalidControl(html);
    expect(errorId).toMatch(/minFixed-error$/);
    expect(invalidControls(html).map((c) => /name="(\w+)"/.exec(c.tag)?.[1])).toEqual(['minFixed']);
  });

  it('signup: each field with an error, one at a time, is invalid and described by its message', () => {
    for (const field of signupFields) {
      const html = signupForm({ [field]: 'is wrong' });
      expect(expectEveryErrorOnAnInvalidControl(html), field).toHaveLength(1);
    }
  });

  it('preferences: an invalid minimum budget marks the fixed minimum too', () => {
    const html = preferencesForm({ minBudget: 'enter a number' });
    expectEveryErrorOnAnInvalidControl(html);
    expect(invalidControls(html).map((c) => /name="(\w+)"/.exec(c.tag)?.[1])).toEqual(['minFixed']);
  });

  it('preferences: each field with an error, one at a time, is invalid and described by its message', () => {
    for (const field of preferenceFields) {
      const html = preferencesForm({ [field]: 'is wrong' });
      expectEveryErrorOnAnInvalidControl(html);
    }
  });

  it('the stylesheet gives every invalid control in any form the one red border, and no rule gives it another', async () => {
    const css = await readFile(new URL('../../public/scout.css', import.meta.url), 'utf8');
    expect(css).toMatch(/form \[aria-invalid='true'\] {\s*border-color: var\(--danger\) !important;/);
    const rules = [...css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/([^{}]+){([^}]*)}/g)].filter(
      ([, selector, body]) => selector.includes('aria-invalid') && /border/.test(body),
    );
    expect(rules.map(([, selector]) => selector.trim())).toEqual(["form [aria-invalid='true']"]);
  });
});
