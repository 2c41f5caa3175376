import { describe, expect, it } from 'vitest';
import { repairMojibake } from '../../../lib/feeds/adapters/repair-mojibake';

describe('repairMojibake', () => {
  it('undoes UTF-8 read as Windows-1252, one character at a time', () => {
    expect(repairMojibake('Weâ€™re hiring â€“ Zürich')).toBe('We’re hiring – Zürich');
    expect(repairMojibake('CafÃ© â€œquotedâ€\u009d')).toBe('Café “quoted”');
    expect(repairMojibake('emoji ðŸš€')).toBe('emoji 🚀');
  });

  it('leaves genuine accented text and prices alone', () => {
    for (const text of ['Café crème in Zürich', 'São Paulo', 'Ångström £50k €60k', 'Â alone', 'naïve coöperation'])
      expect(repairMojibake(text)).toBe(text);
  });
});
