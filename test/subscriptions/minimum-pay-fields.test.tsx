import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { MINIMUM_PAY_FIELDS, MINIMUM_PAY_WORDS } from '../../lib/pay/minimum-pay-words';
import { MINIMUM_PAY_KINDS } from '../../lib/pay/minimum-pay';
import { SignupFormView } from '../../lib/subscriptions/signup-form';
import { emptySignupValues } from '../../lib/subscriptions/signup-form-values';
import { formValuesOf, PreferencesFormView } from '../../lib/subscriptions/preferences-page';
import { NO_MIN_PAY } from '../../lib/pay/minimum-pay';

/**
 * The minimum-pay fields say the same on every form: one field per kind of pay Scout compares, with
 * the same label and help on the signup form and the preferences page (one copy of the words).
 */

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function signupForm(askAbout: boolean) {
  return renderToStaticMarkup(
    <SignupFormView values={emptySignupValues} errors={{}} askAbout={askAbout} timeZones={['UTC']} defaultDigestHour={8} />,
  );
}

function preferencesPage(aiEnabled: boolean) {
  const values = formValuesOf({
    keywords: ['react'],
    excludes: [],
    minPay: NO_MIN_PAY,
    mode: 'instant',
    about: '',
    fitThreshold: 60,
    timezone: 'UTC',
    digestHour: null,
    weekdays: ['mon'],
    weeklyDay: 'mon',
  });
  return renderToStaticMarkup(
    <PreferencesFormView
      token="t"
      maskedEmail={null}
      subscriberStatus="active"
      values={values}
      cadence="an email as soon as a posting fits"
      unsubscribeLink="http://localhost:3000/unsubscribe?token=t"
      digestHourUtc={8}
      aiEnabled={aiEnabled}
    />,
  );
}

describe('the minimum-pay fields', () => {
  it('are one per kind Scout compares: fixed, hourly, yearly', () => {
    expect(MINIMUM_PAY_FIELDS).toEqual(['minFixed', 'minHourly', 'minYearly']);
    expect(MINIMUM_PAY_KINDS).toEqual(['fixed', 'hourly', 'yearly']);
  });

  it('carry the same labels, help and examples on the signup form and the preferences page', () => {
    for (const page of [signupForm(false), preferencesPage(false)]) {
      expect(page).toContain(`<legend>${MINIMUM_PAY_WORDS.legend}`);
      expect(page).toContain(escape(MINIMUM_PAY_WORDS.hint));
      for (const field of MINIMUM_PAY_FIELDS) {
        const words = MINIMUM_PAY_WORDS.fields[field];
        expect(page).toMatch(new RegExp(`<label for="[^"]*${field}">${words.label}</label>`));
        expect(page).toContain(escape(words.hint));
        expect(page).toMatch(new RegExp(`<input[^>]*placeholder="${words.example}"[^>]*name="${field}"`));
      }
      expect(page).toMatch(new RegExp(`<label for="[^"]*minCurrency">${MINIMUM_PAY_WORDS.currency.label}</label>`));
      expect(page).toContain(escape(MINIMUM_PAY_WORDS.currency.hint));
    }
  });
});

describe('About you and the fit threshold follow the AI stage on both forms', () => {
  it('off: neither form has them', () => {
    for (const page of [signupForm(false), preferencesPage(false)]) {
      expect(page).not.toContain('name="about"');
      expect(page).not.toContain('name="fitThreshold"');
    }
  });

  it('on: the signup form asks about you, the preferences page both', () => {
    expect(signupForm(true)).toContain('name="about"');
    expect(preferencesPage(true)).toContain('name="about"');
    expect(preferencesPage(true)).toContain('name="fitThreshold"');
  });
});
