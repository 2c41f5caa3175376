import type { FeedHandler, ServedFeed } from '../served-feed';

/** One SOURCES entry as the operator writes it (README "Sources"). */
export type SourceEntry = {
  kind: string;
  id: string;
  params: Record<string, unknown>;
  timeoutMs?: number;
  maxBytes?: number;
  minIntervalMinutes?: number;
};

/**
 * One kind of source on the local stack: the paths the sample source server answers (built from
 * the kind's fixtures, at the provider's own paths) and the SOURCES entry that reads them from
 * the server's origin.
 */
export type SampleKind = {
  kind: string;
  /** `now`: the sample server's clock, for kinds that date their fixtures relative to it (default: the real one). */
  served(now?: Date): Promise<Record<string, ServedFeed>>;
  /**
   * Paths answered by code rather than a fixed body (a token endpoint that rotates its tokens), fresh
   * per server; `now` as for `served`, so a replayed day's answers are dated that day too.
   */
  routes?(now?: Date): Promise<Record<string, FeedHandler>>;
  entry(origin: string): SourceEntry;
};
