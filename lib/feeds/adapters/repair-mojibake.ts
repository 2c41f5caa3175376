// Windows-1252's printable characters in 0x80-0x9F: what UTF-8 continuation bytes turn into when
// a UTF-8 text was once read as Windows-1252 ("â€™" for "’").
const CP1252: Record<string, number> = {
  '€': 0x80,
  '‚': 0x82,
  ƒ: 0x83,
  '„': 0x84,
  '…': 0x85,
  '†': 0x86,
  '‡': 0x87,
  ˆ: 0x88,
  '‰': 0x89,
  Š: 0x8a,
  '‹': 0x8b,
  Œ: 0x8c,
  Ž: 0x8e,
  '‘': 0x91,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '•': 0x95,
  '–': 0x96,
  '—': 0x97,
  '˜': 0x98,
  '™': 0x99,
  š: 0x9a,
  '›': 0x9b,
  œ: 0x9c,
  ž: 0x9e,
  Ÿ: 0x9f,
};
const CONTINUATION = `[\\u0080-\\u00BF${Object.keys(CP1252).join('')}]`;
// A UTF-8 lead byte read as Latin-1 (Â-ô), then exactly the continuation bytes it announces.
const SUSPECT = new RegExp(`[\\u00C2-\\u00DF]${CONTINUATION}|[\\u00E0-\\u00EF]${CONTINUATION}{2}|[\\u00F0-\\u00F4]${CONTINUATION}{3}`, 'g');
const utf8 = new TextDecoder('utf-8', { fatal: true });

// Real Remote OK answers carry text that went through the mistake twice ("weÃ¢â‚¬â„¢ve" → "weâ€™ve"
// → "we’ve"); a third pass was not seen, and the cap keeps a hostile text from looping long.
const MAX_PASSES = 3;

/**
 * Undoes UTF-8-read-as-Windows-1252 ("Weâ€™re" → "We’re"), sequence by sequence and pass after
 * pass while a pass still finds one: only a run of characters that is exactly the bytes of one
 * valid UTF-8 character is replaced, so genuine accented text ("Café", "Zürich") is left alone.
 */
export function repairMojibake(text: string): string {
  let repaired = text;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = repairOnePass(repaired);
    if (next === repaired) break;
    repaired = next;
  }
  return repaired;
}

function repairOnePass(text: string): string {
  if (!/[\u00C2-\u00F4]/.test(text)) return text;
  return text.replace(SUSPECT, (run) => {
    const bytes = Uint8Array.from([...run].map((char) => CP1252[char] ?? char.charCodeAt(0)));
    try {
      const decoded = utf8.decode(bytes);
      return [...decoded].length === 1 ? decoded : run;
    } catch {
      return run;
    }
  });
}
