// Messages stay short and never quote a response body: they end up on
// feeds/{source}.lastError and the ops page.

export class FeedParseError extends Error {
  readonly source: string;

  constructor(source: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FeedParseError';
    this.source = source;
  }
}

export class FeedFetchError extends Error {
  readonly source: string;
  readonly status?: number;
  /** From a 429/503's Retry-After, capped: the source is not asked again before it has passed. */
  readonly retryAfterSeconds?: number;

  constructor(input: { source: string; status?: number; message: string; cause?: unknown; retryAfterSeconds?: number }) {
    super(input.message, input.cause === undefined ? undefined : { cause: input.cause });
    this.name = 'FeedFetchError';
    this.source = input.source;
    if (input.status !== undefined) this.status = input.status;
    if (input.retryAfterSeconds !== undefined) this.retryAfterSeconds = input.retryAfterSeconds;
  }
}
