import { describe, expect, it } from 'vitest';
import { mailboxOf } from '../../lib/subscribers/mailbox';

describe('mailboxOf: every spelling that reaches one inbox is one mailbox for the rate limits', () => {
  it.each([
    ['victim@example.com', 'victim@example.com'],
    ['Victim@Example.COM', 'victim@example.com'],
    [' victim@example.com ', 'victim@example.com'],
    ['victim+1@example.com', 'victim@example.com'],
    ['VICTIM+News@example.com', 'victim@example.com'],
    ['victim+a+b@example.com', 'victim@example.com'],
    ['victim+@example.com', 'victim@example.com'],
    // Gmail ignores dots in the local part and answers to googlemail.com as well.
    ['v.i.c.t.i.m+x@gmail.com', 'victim@gmail.com'],
    ['Victim@GoogleMail.com', 'victim@gmail.com'],
    // Elsewhere dots are part of the address: a.b and ab may be two people.
    ['v.ictim@example.com', 'v.ictim@example.com'],
    // A local part that is only a tag keeps its tag: it is no one else's address.
    ['+tag@example.com', '+tag@example.com'],
    ['victim@sub.example.com', 'victim@sub.example.com'],
  ])('%s → %s', (email, mailbox) => {
    expect(mailboxOf(email)).toBe(mailbox);
  });
});
