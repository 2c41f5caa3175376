import { readdirSync, readFileSync } from 'node:fs';
import { parseAshbyJobs } from '../../lib/feeds/adapters/ashby-adapter';
import { parseGreenhouseJobs } from '../../lib/feeds/adapters/greenhouse-adapter';
import { parseLeverPostings } from '../../lib/feeds/adapters/lever-adapter';
import { remoteOkAdapter } from '../../lib/feeds/adapters/remoteok-adapter';
import { remotiveAdapter } from '../../lib/feeds/adapters/remotive-adapter';
import { parseFeed } from '../../lib/feeds/parse-feed';
import { cleanPlainText, collapseWhitespace, htmlToPlainText } from '../../lib/feeds/plain-text';
import { MAX_DESCRIPTION_INPUT, type Posting } from '../../lib/feeds/posting';
import type { AnySourceAdapter } from '../../lib/feeds/source-adapter';
import { json, readOnce } from '../sample-feed/read-once';

/** The real corpus of captured board answers (test/feeds/adapters/corpus/README.md). */
export const CORPUS_DIR = new URL('../../test/feeds/adapters/corpus/', import.meta.url);

export type CorpusFile = { kind: string; file: string; postings: Posting[] };

/**
 * Every corpus file read by its kind's real adapter, as a run stores it: the boards with a pure
 * parser through it, Remotive and RemoteOK through one read over loopback. HN's comments come as a
 * thread the adapter finds through a search; here each comment's text goes through the same
 * conversion the adapter applies (HTML to plain text, whitespace collapsed), which is what the
 * text measurements need.
 */
export async function readCorpusPostings(): Promise<CorpusFile[]> {
  const read: CorpusFile[] = [];
  for (const kind of readdirSync(CORPUS_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    const folder = new URL(`${kind.name}/`, CORPUS_DIR);
    for (const file of readdirSync(folder)
      .filter((name) => /\.(json|xml)$/.test(name))
      .sort()) {
      const text = readFileSync(new URL(file, folder), 'utf8');
      read.push({ kind: kind.name, file, postings: await postingsOf(kind.name, text) });
    }
  }
  return read;
}

async function postingsOf(kind: string, text: string): Promise<Posting[]> {
  switch (kind) {
    case 'greenhouse':
      return parseGreenhouseJobs(kind, text, { company: null });
    case 'lever':
      return parseLeverPostings(kind, text, { company: null });
    case 'ashby':
      return parseAshbyJobs(kind, text, { company: null });
    case 'upwork':
      return upworkResults(text);
    case 'feed':
      return parseFeed(text, { source: kind, baseUrl: 'https://example.invalid/' });
    case 'remotive':
      return readOverLoopback(remotiveAdapter, '/api/remote-jobs', text);
    case 'remoteok':
      return readOverLoopback(remoteOkAdapter, '/api', text);
    case 'hn-whoishiring':
      return hnComments(text);
    default:
      throw new Error(`no reader for corpus kind ${kind}`);
  }
}

type UpworkResult = { id?: string; title?: string; description?: string | null };

// The corpus's Upwork files are the website's own search answers, not the GraphQL one the adapter
// reads: its fields are read here as the adapter reads the same fields (plain text, cleaned).
function upworkResults(text: string): Posting[] {
  const answer = JSON.parse(text) as
    UpworkResult[] | { data?: { search?: { universalSearchNuxt?: { userJobSearchV1?: { results?: UpworkResult[] } } } } };
  const results = Array.isArray(answer) ? answer : (answer.data?.search?.universalSearchNuxt?.userJobSearchV1?.results ?? []);
  return results.map((result, i) =>
    commentPosting(
      'upwork',
      result.id ?? String(i),
      result.title ?? '',
      collapseWhitespace(cleanPlainText(result.description ?? '', MAX_DESCRIPTION_INPUT)),
    ),
  );
}

async function readOverLoopback(adapter: AnySourceAdapter, path: string, body: string): Promise<Posting[]> {
  const result = await readOnce(adapter, {
    params: {},
    served: { [path]: json(body) },
    now: new Date(),
    id: `${adapter.kind}-corpus`,
  });
  return result.status === 'ok' ? result.postings : [];
}

type HnAnswer = { children?: { id: number; text?: string | null }[]; hits?: { objectID: string; comment_text?: string | null }[] };

function hnComments(text: string): Posting[] {
  const answer = JSON.parse(text) as HnAnswer;
  const comments = [
    ...(answer.children ?? []).map((c) => ({ id: String(c.id), html: c.text ?? '' })),
    ...(answer.hits ?? []).map((h) => ({ id: h.objectID, html: h.comment_text ?? '' })),
  ];
  return comments
    .filter((c) => c.html.trim() !== '')
    .map((c) => commentPosting('hn-whoishiring', c.id, '', collapseWhitespace(htmlToPlainText(c.html, MAX_DESCRIPTION_INPUT))));
}

const commentPosting = (source: string, id: string, title: string, description: string): Posting => ({
  id: `${source}_${id}`,
  source,
  guid: id,
  title,
  url: null,
  description,
  budget: null,
  skills: [],
  publishedAt: null,
});
