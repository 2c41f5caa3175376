import { describe, expect, it } from 'vitest';
import { repairMojibake } from '../../../lib/feeds/adapters/repair-mojibake';

describe('repairMojibake', () => {
  it('undoes UTF-8 read as Windows-1252, one character at a time', () => {
    expect(repairMojibake('Weâ€™re hiring â€“ Zürich')).toBe('We’re hiring – Zürich');
    expect(repairMojibake('CafÃ© â€œquotedâ€\u009d')).toBe('Café “quoted”');
    expect(repairMojibake('emoji ðŸš€')).toBe('emoji 🚀');
  });

  it('undoes the second round that real Remote OK answers carry', () => {
    // "we’ve" as UTF-8 bytes read one byte a character (Latin-1, as in the real answers).
    const once = [...Buffer.from('we’ve', 'utf8')].map((byte) => String.fromCharCode(byte)).join('');
    // "we’ve" misread as Windows-1252, and that text encoded and misread once more.
    expect(repairMojibake('weÃ¢â‚¬â„¢ve')).toBe('we’ve');
    expect(repairMojibake(`${once} and weâ€™re`)).toBe('we’ve and we’re');
  });

  it('leaves genuine accented text and prices alone', () => {
    for (const text of ['Café crème in Zürich', 'São Paulo', 'Ångström £50k €60k', 'Â alone', 'naïve coöperation'])
      expect(repairMojibake(text)).toBe(text);
  });
});
