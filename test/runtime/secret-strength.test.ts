import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { estimatedSecretBits } from '../../lib/runtime/secret-strength';

describe('estimatedSecretBits', () => {
  it.each([
    ['a'.repeat(32), 'one character repeated'],
    ['password'.repeat(4), 'a word repeated'],
    [`${'abc'.repeat(10)}ab`, 'a short pattern with a partial last unit'],
    [`${'a'.repeat(31)}b`, 'two different characters'],
    ['0123456789'.repeat(4), 'the digits in order, repeated'],
  ])('reads %s as a pattern (%s): under 48 bits', (secret) => {
    expect(estimatedSecretBits(secret)).toBeLessThan(48);
  });

  it('reads what `openssl rand` gives as well over the production floor of 96 bits, every time', () => {
    for (let i = 0; i < 200; i++) {
      expect(estimatedSecretBits(randomBytes(32).toString('base64'))).toBeGreaterThan(150);
      expect(estimatedSecretBits(randomBytes(32).toString('hex'))).toBeGreaterThan(200);
      expect(estimatedSecretBits(randomBytes(24).toString('base64url'))).toBeGreaterThan(96);
    }
  });

  it('counts characters, not UTF-16 units, and is 0 for the empty string', () => {
    expect(estimatedSecretBits('')).toBe(0);
    expect(estimatedSecretBits('🔑'.repeat(20))).toBe(0);
  });
});
