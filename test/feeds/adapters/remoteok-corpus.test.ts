import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { remoteOkAdapter } from '../../../lib/feeds/adapters/remoteok-adapter';
import type { Posting } from '../../../lib/feeds/posting';
import { json, readOnce } from './read-adapter';

/**
 * Real Remote OK answers (corpus/remoteok, each with its provenance) read as their authors wrote
 * them: line breaks that arrive as the two characters `\n` and text misread as Latin-1 or
 * Windows-1252 (once or twice) are undone, so no posting shows them to a subscriber.
 */
const folder = new URL('./corpus/remoteok/', import.meta.url);
const files = readdirSync(folder).filter((name) => name.endsWith('.json'));
// What UTF-8 read one byte a character leaves: a lead byte, then a continuation byte or its Windows-1252 stand-in.
async function postingsOf(text: string): Promise<Posting[]> {
  const read = await readOnce(remoteOkAdapter, { params: {}, served: { '/api': json(text) }, now: new Date() });
  if (read.status !== 'ok') throw new Error(`the corpus read answered ${read.status}`);
  return read.postings;
}
const MISREAD =
  /[\u00C2-\u00F4][\u0080-\u00BF\u20AC\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u017D\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u017E\u0178]/;

describe('remoteok: real answers read as written', () => {
  it.each(files)('%s: no literal "\\n" and no misread UTF-8 left in any title, employer, place or description', async (file) => {
    const text = readFileSync(new URL(file, folder), 'utf8');
    const postings = await postingsOf(text);
    expect(postings.length).toBeGreaterThan(0);
    for (const posting of postings) {
      for (const [field, value] of Object.entries({
        title: posting.title,
        company: posting.company,
        location: posting.location,
        description: posting.description,
      })) {
        expect(value ?? '', `${file} ${posting.guid} ${field}`).not.toContain('\\n');
        expect(value ?? '', `${file} ${posting.guid} ${field}`).not.toMatch(MISREAD);
      }
    }
  });

  it('a real description whose line breaks came as "\\n" keeps its words apart', async () => {
    const text = readFileSync(new URL('sureshmenon87-mock-server.json', folder), 'utf8');
    const raw = (JSON.parse(text) as { id?: string; description?: string }[]).filter((job) => job.description?.includes('\\n'));
    expect(raw.length).toBeGreaterThan(50);
    const postings = await postingsOf(text);
    const aragon = postings.find((posting) => posting.description.startsWith('Aragon'));
    expect(aragon?.description).toMatch(/Organizations\. 💪 What you’ll do/u);
  });
});
