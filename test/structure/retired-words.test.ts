import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The words docs/glossary.md retires, each as it is spelled in lib/: in prose, in camelCase and in
 * CONSTANT_CASE. "set" is matched only in its retired compounds (a sealed set, a set of one,
 * SealedSet, sealSets): the verb and the built-in Set are everywhere and mean nothing else.
 */
const RETIRED: { word: string; pattern: RegExp; sayInstead: string }[] = [
  { word: 'round', pattern: /(?<![A-Za-z])rounds?(?![a-z])|Rounds?(?![a-z])|ROUNDS?/g, sayInstead: 'attempt' },
  { word: 'slice', pattern: /(?<![A-Za-z.])slices?(?![a-z(])|Slices?(?![a-z])|SLICES?/g, sayInstead: 'subscriber batch' },
  { word: 'wave', pattern: /(?<![A-Za-z])waves?(?![a-z])|Waves?(?![a-z])|WAVES?/g, sayInstead: 'batch of composed emails' },
  { word: 'group', pattern: /(?<![A-Za-z])groups?(?![a-z])|Groups?(?![a-z])|GROUPS?/g, sayInstead: 'atomic write' },
  { word: 'unit', pattern: /(?<![A-Za-z])units?(?![a-z])|Units?(?![a-z])|UNITS?/g, sayInstead: 'send batch' },
  { word: 'chunk', pattern: /(?<![A-Za-z])chunks?(?![a-z])|Chunks?(?![a-z])|CHUNKS?/g, sayInstead: 'batch' },
  { word: 'handoff', pattern: /handoffs?/gi, sayInstead: 'sender' },
  { word: 'seal', pattern: /(?<![A-Za-z])(?:un)?seal|Seal|SEAL/g, sayInstead: 'pack (into a send batch)' },
  {
    word: 'set (of emails)',
    pattern: /\b(?:sealed|open|send|held) sets?\b|\bsets? of one\b|\bsets handed\b|[a-z]Sets?(?![a-z])/g,
    sayInstead: 'send batch',
  },
];

/**
 * What shares a retired word's spelling but not its meaning. `file` limits an entry to the files
 * whose path contains it; `text` is taken out of each line before the retired words are looked for.
 */
const OTHER_MEANINGS: { file?: string; text: RegExp; why: string }[] = [
  { text: /Math\.round/g, why: 'the built-in' },
  { text: /\bround[- ]trips?\b/g, why: 'one request and its answer' },
  { text: /\bcollectionGroup\b|\bcollection group\b/g, why: "Firestore's API and its term" },
  { text: /\.groups\b/g, why: "a regex match's named groups" },
  { file: 'lib/feeds/job-title.ts', text: /\bcompanyGroup\b/g, why: 'the regex group that holds the employer' },
  {
    file: 'lib/pay/parse-pay.ts',
    text: /\bgroup\b|\bunit\b|\bUNIT_KINDS\b/g,
    why: 'digit grouping, and units of pay (per hour, per year)',
  },
  { file: 'lib/runtime/secret-strength.ts', text: /\bunits?\b/g, why: 'the repeating unit of a weak secret' },
  { text: /\bUTF-16 units\b/g, why: 'code units' },
  { file: 'lib/feeds/adapters/build-posting.ts', text: /\ba wrong unit\b/g, why: 'a date in the wrong unit of time' },
  { file: 'lib/mail/email-subject.ts', text: /\bneeds no unit\b/g, why: 'a unit of pay' },
  { file: 'lib/admin/charts.tsx', text: /\bunit\b/g, why: "a chart's unit of measure" },
  { file: 'lib/http/read-capped-body.ts', text: /\bchunks?\b/g, why: "a stream's chunks" },
  {
    file: 'lib/channels/',
    text: /\b(?:super)?group chats?\b|"[^"\n]*same group"/g,
    why: "Telegram's name for a shared chat, and its words quoted",
  },
  { file: 'lib/subscribers/link-token.ts', text: /seal/gi, why: 'encryption' },
  { file: 'lib/feeds/upwork-token.ts', text: /seal/gi, why: 'encryption' },
  { file: 'lib/feeds/adapters/upwork-adapter.ts', text: /\bsealed\b/g, why: 'encrypted tokens' },
  { text: /\bcharSet\b|\bdangerouslySetInnerHTML\b|\bwhereItIsSet\b|\b(?:Readonly|Weak)Set\b/g, why: 'built-ins, React and the verb' },
];

type Hit = { file: string; line: number; word: string; found: string; sayInstead: string };

/** Every retired word in one file's text (and in its path), line by line, after the other meanings are taken out. */
function retiredWordsIn(file: string, text: string): Hit[] {
  const hits: Hit[] = [];
  const lines = [file.replace(/^lib\//, ''), ...text.split('\n')];
  lines.forEach((raw, i) => {
    let line = raw;
    for (const meaning of OTHER_MEANINGS) if (!meaning.file || file.includes(meaning.file)) line = line.replace(meaning.text, ' ');
    for (const { word, pattern, sayInstead } of RETIRED)
      for (const match of line.matchAll(pattern)) hits.push({ file, line: i, word, found: match[0], sayInstead });
  });
  return hits;
}

function libFiles(): string[] {
  return readdirSync(join(root, 'lib'), { recursive: true })
    .map((path) => `lib/${String(path)}`)
    .filter((path) => /\.tsx?$/.test(path));
}

describe('retired words (docs/glossary.md)', () => {
  it('no file in lib/ uses a retired word for a part of the work', () => {
    const hits = libFiles().flatMap((file) => retiredWordsIn(file, readFileSync(join(root, file), 'utf8')));
    const report = hits.map((h) => `${h.file}:${h.line} "${h.found}" (${h.word}: say ${h.sayInstead})`);
    expect(report).toEqual([]);
  });

  it.each([
    ['a claim step that retries in rounds', 'lib/claims/x.ts', 'export const MAX_CLAIM_ROUNDS = 10;', 'round'],
    ['a subscriber slice', 'lib/claims/x.ts', '// each slice plans from one read', 'slice'],
    ['a wave of composed emails', 'lib/mail/x.ts', 'for await (const wave of waves) {}', 'wave'],
    ['a write group', 'lib/store/x.ts', 'export type WriteGroup = {};', 'group'],
    ['a send unit', 'lib/outbox/x.ts', 'const unit = singleUnit(lease);', 'unit'],
    ['a chunk of rows', 'lib/outbox/x.ts', 'const LEASE_CHUNK = 200;', 'chunk'],
    ['the handoff', 'lib/outbox/x.ts', 'createHandoff(deps)', 'handoff'],
    ['a sealed set', 'lib/outbox/x.ts', '/** A sealed set of emails. */', 'seal'],
    ['a set of emails by its old type name', 'lib/outbox/x.ts', 'const held = options.holdOpenSet;', 'set (of emails)'],
    ['a retired word in a file name', 'lib/store/in-slices.ts', '', 'slice'],
  ])('a planted retired word is caught: %s', (_, file, text, word) => {
    expect(retiredWordsIn(file, text).map((h) => h.word)).toContain(word);
  });

  it.each([
    ['Array.prototype.slice', 'lib/x.ts', 'const head = items.slice(0, 3);'],
    ['Math.round and a round trip', 'lib/x.ts', '// one round trip: Math.round(ms)'],
    ['a Set and the verb', 'lib/x.ts', 'const seen = new Set<string>(); // sets `builtAt` when done'],
    ['a collection group query', 'lib/x.ts', 'db.collectionGroup("items")'],
    ["a regex match's groups", 'lib/x.ts', 'const { cur } = match.groups!;'],
    ['a unit of pay', 'lib/pay/parse-pay.ts', 'const periodWord = period?.unit;'],
    ["a stream's chunks", 'lib/http/read-capped-body.ts', 'for await (const chunk of body) {}'],
    ['encryption', 'lib/subscribers/link-token.ts', 'type SealKeys = { seal: Buffer };'],
    ['the words in use', 'lib/outbox/x.ts', 'const sendBatch = packedSendBatch(leases); // attempt, atomic write, batch'],
    ['a word that merely contains a retired one', 'lib/x.ts', 'deps.composeAlert(subscriber); // around, grouped, wavelength, community'],
  ])('another meaning is not caught: %s', (_, file, text) => {
    expect(retiredWordsIn(file, text)).toEqual([]);
  });
});
