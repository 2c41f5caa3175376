import { describe, expect, it } from 'vitest';
import { employerLine } from '../../lib/mail/compose-email';

describe("a card's employer line", () => {
  it('names the company, the location and remote, from the boards that say', () => {
    expect(employerLine({ company: 'Acme', location: 'Berlin, Germany', remote: true })).toBe('Acme · Berlin, Germany · remote');
    expect(employerLine({ company: 'Acme', location: null, remote: false })).toBe('Acme');
    expect(employerLine({ company: null, location: null, remote: true })).toBe('remote');
  });

  it('does not say remote twice when the location already does', () => {
    expect(employerLine({ company: 'Acme', location: 'Remote (EU)', remote: true })).toBe('Acme · Remote (EU)');
  });

  it('is absent for a feed item, which names neither, so its card reads as before', () => {
    expect(employerLine({})).toBeNull();
    expect(employerLine({ company: null, location: null, remote: null })).toBeNull();
  });
});
