import { describe, expect, it } from 'vitest';
import { emailTypoSuggestion } from '../../lib/subscribers/email-typo';

/** "Did you mean …?": the big providers' common typos are caught; real domains, rare ones included, are left alone. */

describe('emailTypoSuggestion', () => {
  it.each([
    ['new.person@gmial.con', 'new.person@gmail.com'],
    ['ada@hotmial.com', 'ada@hotmail.com'],
    ['ada@yaho.com', 'ada@yahoo.com'],
    ['ada@outlok.com', 'ada@outlook.com'],
    ['ada@gmail.co', 'ada@gmail.com'],
    ['ada@gmail.cmo', 'ada@gmail.com'],
    ['ada@gamil.com', 'ada@gmail.com'],
    ['ada@icloud.con', 'ada@icloud.com'],
  ])('%s → %s', (typed, meant) => {
    expect(emailTypoSuggestion(typed)).toBe(meant);
  });

  it('keeps the local part as typed, case and tags included, and reads past surrounding spaces', () => {
    expect(emailTypoSuggestion('  New.Person+jobs@Gmial.con ')).toBe('New.Person+jobs@gmail.com');
  });

  it.each([
    // Rare but real: the library alone would "fix" these to fastmail.fr, mail.org, a .de, gmx.de, cox.net, aol.com.
    'fastmail.fm',
    'mailbox.org',
    'posteo.de',
    'pm.me',
    'a1.net',
    'uol.com.br',
    'tuta.io',
    'disroot.org',
    'uni-heidelberg.de',
    // A provider under a country's ending it serves.
    'yahoo.co.uk',
    'hotmail.fr',
    'outlook.de',
    'gmx.at',
    'aol.co.uk',
    'hotmail.com.br',
    // The providers themselves, and Scout's own test domains.
    'gmail.com',
    'googlemail.com',
    'hotmail.com',
    'yahoo.com',
    'outlook.com',
    'proton.me',
    'example.com',
    'scout.test',
  ])('a correct domain is not flagged: %s', (domain) => {
    expect(emailTypoSuggestion(`ada@${domain}`)).toBeNull();
  });

  it('says nothing about what is not an address yet', () => {
    for (const text of ['', 'ada', 'ada@', '@gmial.con', 'ada@gmial']) expect(emailTypoSuggestion(text)).toBeNull();
  });
});
