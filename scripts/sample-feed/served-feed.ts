/** One answer the sample source server gives at a path. */
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
