/**
 * npm run bench:match — what keeping a posting's whole text costs, over the real corpus
 * (test/feeds/adapters/corpus, read by the real adapters). Pure CPU, no emulator.
 *
 * - How long real postings are: plain-text length per kind (p50, p95, max).
 * - What the model reads: estimated tokens per posting (characters / 4, no tokenizer installed),
 *   before (the text cut at 2,000) and after (textForModel: opening, requirements, keyword passages).
 * - Matching: time per posting for a realistic subscriber index, the texts cut at 2,000 and whole,
 *   and the ratio of the time's growth to the text's (matching must not grow faster than the text:
 *   a ratio at or under 1).
 *
 * Options: --subscribers N (10000), --repeats N (15).
 */
import { parseArgs } from 'node:util';
import { capText } from '../../lib/feeds/plain-text';
import type { Posting } from '../../lib/feeds/posting';
import { matchPostings } from '../../lib/matching/match-postings';
import type { MatchProfile } from '../../lib/matching/keyword-lookup';
import { textForModel } from '../../lib/verdicts/model-text';
import { readCorpusPostings } from './corpus-postings';
import { keywordSubscribers } from './bench-vocabulary';

const OLD_CAP = 2_000;

const { values } = parseArgs({
  options: { subscribers: { type: 'string', default: '10000' }, repeats: { type: 'string', default: '15' } },
});
const SUBSCRIBERS = Number(values.subscribers);
const REPEATS = Number(values.repeats);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const median = (list: number[]) =>
  quantile(
    [...list].sort((a, b) => a - b),
    0.5,
  );
const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);
const tokens = (text: string) => Math.ceil(text.length / 4);

/**
 * Matching time per posting, in microseconds: the median over REPEATS of one pass over every
 * posting, the two sets taking turns so that a machine shared with other work slows both alike.
 */
function timeMatching(sets: Posting[][], subscribers: (MatchProfile & { id: string })[]): { perPosting: number; pairs: number }[] {
  const runs = sets.map(() => [] as number[]);
  const pairs = sets.map((postings) => matchPostings(postings, subscribers).length); // unmeasured: regexes and the JIT warm up
  for (let i = 0; i < REPEATS; i++) {
    sets.forEach((postings, j) => {
      const started = process.hrtime.bigint();
      matchPostings(postings, subscribers);
      runs[j].push(Number(process.hrtime.bigint() - started) / 1_000);
    });
  }
  return sets.map((postings, j) => ({ perPosting: median(runs[j]) / postings.length, pairs: pairs[j] }));
}

async function main() {
  console.log(`Node ${process.version}: ${SUBSCRIBERS} subscribers, ${REPEATS} repeats`);
  const files = await readCorpusPostings();
  const postings = files.flatMap((file) => file.postings).filter((p) => p.description !== '');

  console.log('\nHow long real postings are (plain text, chars):');
  const kinds = [...new Set(files.map((f) => f.kind))].sort();
  const lengths = kinds.map((kind) => {
    const list = files
      .filter((f) => f.kind === kind)
      .flatMap((f) => f.postings.map((p) => p.description.length))
      .filter((n) => n > 0)
      .sort((a, b) => a - b);
    return {
      kind,
      files: files.filter((f) => f.kind === kind).length,
      postings: list.length,
      p50: quantile(list, 0.5),
      p95: quantile(list, 0.95),
      max: list.at(-1),
      'over 2,000': list.filter((n) => n > OLD_CAP).length,
    };
  });
  const all = postings.map((p) => p.description.length).sort((a, b) => a - b);
  lengths.push({
    kind: 'all',
    files: files.length,
    postings: all.length,
    p50: quantile(all, 0.5),
    p95: quantile(all, 0.95),
    max: all.at(-1),
    'over 2,000': all.filter((n) => n > OLD_CAP).length,
  });
  console.table(lengths);

  const subscribers = keywordSubscribers(SUBSCRIBERS);
  console.log('\nWhat the model reads of a posting (estimated tokens, chars / 4), each with a subscriber of the index it matched:');
  const matched = matchPostings(postings, subscribers);
  const keywordsOf = new Map(matched.map((m) => [m.posting.id, m.subscriber.keywords]));
  const before = postings.map((p) => tokens(capText(p.description, OLD_CAP)));
  const after = postings.map((p) => tokens(textForModel(p.description, keywordsOf.get(p.id) ?? [])));
  const whole = postings.map((p) => tokens(p.description));
  console.table(
    [
      ['before: the text cut at 2,000', before],
      ['after: textForModel', after],
      ['(the whole text, never sent)', whole],
    ].map(([what, list]) => ({
      what,
      mean: Math.round(sum(list as number[]) / (list as number[]).length),
      p50: median(list as number[]),
      max: Math.max(...(list as number[])),
    })),
  );

  console.log('\nMatching, per posting (median of the repeats):');
  const cut = postings.map((p) => ({ ...p, description: capText(p.description, OLD_CAP) }));
  const cutChars = sum(cut.map((p) => p.description.length));
  const wholeChars = sum(postings.map((p) => p.description.length));
  const [old, now] = timeMatching([cut, postings], subscribers);
  const textGrowth = wholeChars / cutChars;
  const timeGrowth = now.perPosting / old.perPosting;
  console.table([
    {
      text: 'cut at 2,000',
      'chars per posting': Math.round(cutChars / cut.length),
      'µs per posting': old.perPosting.toFixed(1),
      pairs: old.pairs,
    },
    {
      text: 'whole',
      'chars per posting': Math.round(wholeChars / postings.length),
      'µs per posting': now.perPosting.toFixed(1),
      pairs: now.pairs,
    },
  ]);
  console.log(
    `text grew ${textGrowth.toFixed(2)}×, matching time ${timeGrowth.toFixed(2)}×: ratio ${(timeGrowth / textGrowth).toFixed(2)} ` +
      `(${timeGrowth / textGrowth <= 1 ? 'not faster than the text' : 'FASTER than the text'})`,
  );
}

await main();
