/**
 * The words of "Did you mean …?" under the signup form's email field, the one copy of them: the
 * server renders them (signup-form.tsx) and the form script (lib/client) builds the hint offered
 * as the field is left from them. Free of React and the server for that reason.
 */
export const EMAIL_SUGGESTION_WORDS = {
  question: 'Did you mean',
  notYet: 'Scout has not signed you up yet.',
  use: (address: string) => `Use ${address}`,
  useAnyway: (address: string) => `Use ${address} anyway`,
  keep: (address: string) => `Keep ${address}`,
} as const;

/** The id of the hint offered as the field is left (the field is described by it while it shows). */
export const EMAIL_SUGGESTION_HINT_ID = 'signup-email-suggestion';
