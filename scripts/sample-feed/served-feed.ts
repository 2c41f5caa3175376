import type { IncomingHttpHeaders } from 'node:http';

/** One answer of the sample source server at one path (scripts/sample-feed/server.ts). */
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

/** A request as a handler sees it, its body read whole (up to 1 MB). */
export type HandledRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string };

/** Answers a path by code: for APIs with state, like an OAuth2 token endpoint that rotates its tokens. */
export type FeedHandler = (request: HandledRequest) => ServedFeed | Promise<ServedFeed>;
