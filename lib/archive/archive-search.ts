import { z } from 'zod';
import { parseArchiveCursor, type ArchiveCursor } from './archive-cursor';

/** Longest search the archive takes, and the most words it looks for: a search box, not a query language. */
export const MAX_SEARCH_LENGTH = 100;
export const MAX_SEARCH_TERMS = 8;

/** What a search looks for: lowercased words, every one of which an entry must hold. */
export type SearchTerms = string[];

const fold = (text: string) => text.normalize('NFKC').toLowerCase();

export const searchTermsOf = (q: string): SearchTerms => [...new Set(fold(q).split(/\s+/).filter(Boolean))].slice(0, MAX_SEARCH_TERMS);

/** Every term somewhere in the text, case-insensitive ("react berlin" finds "React developer · Acme · Berlin"). */
export function matchesSearch(text: string, terms: SearchTerms): boolean {
  const haystack = fold(text);
  return terms.every((term) => haystack.includes(term));
}

/** GET /archive's query besides the token: an optional search and where the page starts. */
export const archiveQuerySchema = z.object({
  q: z
    .string()
    .max(MAX_SEARCH_LENGTH, `at most ${MAX_SEARCH_LENGTH} characters`)
    .transform((q) => q.trim())
    .default(''),
  before: z
    .string()
    .transform((text, ctx): ArchiveCursor | null => {
      if (text === '') return null;
      const cursor = parseArchiveCursor(text);
      if (!cursor) ctx.addIssue({ code: 'custom', message: 'not a page of this archive' });
      return cursor;
    })
    .default(null),
});
export type ArchiveQuery = z.output<typeof archiveQuerySchema>;

/** The query of a request URL, parsed; `q` and `before` absent read as empty. */
export function parseArchiveQuery(url: URL) {
  return archiveQuerySchema.safeParse({
    q: url.searchParams.get('q') ?? undefined,
    before: url.searchParams.get('before') ?? undefined,
  });
}
