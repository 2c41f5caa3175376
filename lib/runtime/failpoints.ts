/**
 * Named places in the cycle where a test can inject a crash. Production passes `noFailpoints`;
 * a test passes one that throws (or holds a deferred promise) at the point it arms.
 */
export type FailpointName =
  | 'after-postings-stored'
  | 'before-delivery-commit'
  | 'after-claim'
  | 'before-digest-commit'
  | 'after-digest-claim'
  | 'before-send'
  | 'after-send'
  | 'before-record'
  | 'before-digest-marks'
  | 'before-message-send'
  | 'after-message-send';

export type Failpoint = (name: FailpointName, context?: { emailKey?: string; messageKey?: string }) => Promise<void>;

export const noFailpoints: Failpoint = async () => {};

export class InjectedCrash extends Error {
  constructor(readonly point: FailpointName) {
    super(`injected crash at ${point}`);
    this.name = 'InjectedCrash';
  }
}
