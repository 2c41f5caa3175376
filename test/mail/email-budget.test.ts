import { describe, expect, it } from 'vitest';
import { composeWithinBudget, emailBytes } from '../../lib/mail/email-budget';
import type { EmailPayload } from '../../lib/mail/email-payload';

const compose = async (items: string[], leftOut: number): Promise<EmailPayload> => ({
  from: 'a@scout.test',
  to: 'b@scout.test',
  subject: `${items.length} postings`,
  html: `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul><p>${leftOut} more</p>`,
  text: `${items.join('\n')}\n${leftOut} more`,
  headers: {},
});

describe('an email never outgrows its outbox row', () => {
  it('an ordinary email is rendered once, with every item', async () => {
    let renders = 0;
    const result = await composeWithinBudget(['a', 'b', 'c'], async (items, leftOut) => (renders++, compose(items, leftOut)), 10_000);
    expect(result.shown).toBe(3);
    expect(renders).toBe(1);
  });

  it('an oversized email carries the best items that fit, in order, and tells the template how many were left out', async () => {
    const items = Array.from({ length: 100 }, (_, i) => `${i}:${'東'.repeat(1_000)}`);
    const result = await composeWithinBudget(items, compose, 50_000);
    expect(emailBytes(result.payload)).toBeLessThanOrEqual(50_000);
    // Each item is ~6 KB (html and text): about 8 fit.
    expect(result.shown).toBeGreaterThanOrEqual(6);
    expect(result.shown).toBeLessThanOrEqual(8);
    expect(result.payload.text.startsWith('0:')).toBe(true);
    expect(result.payload.text).toContain(`${100 - result.shown} more`);
  });

  it('counts UTF-8 bytes, not characters: three-byte text fills the budget three times as fast', () => {
    expect(emailBytes({ subject: '', html: '東東', text: '' })).toBe(6);
  });

  it('one item always goes out, however large', async () => {
    const result = await composeWithinBudget(['x'.repeat(5_000), 'y'], compose, 1_000);
    expect(result.shown).toBe(1);
  });
});
