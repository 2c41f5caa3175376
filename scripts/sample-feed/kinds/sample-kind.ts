/** One answer of the sample source server at one path. */
export type ServedFeed = {
  body: string;
  contentType: string;
  /** Answer with this status instead of 200 (fault tests: 500, 429…); no validators then. */
  status?: number;
  /** Wait this long before answering (timeout tests). */
  delayMs?: number;
  /** Sent as the Location header, with a 3xx `status` (redirect tests). */
  location?: string;
  /** Extra response headers (Retry-After on a 429…). */
  headers?: Record<string, string>;
  /** Send the 200 body 16 bytes at a time, one chunk every this many ms (slow-drip tests). */
  dripMs?: number;
};

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
  entry(origin: string): SourceEntry;
};
