/** What the sink kept of one accepted email: enough to answer GET /emails/:id and to count deliveries in tests. */
export type SinkMessage = {
  id: string;
  /** The Bearer key it was sent with: the sink's notion of a Resend team. */
  apiKey: string;
  idempotencyKey: string | null;
  receivedAt: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  tags: { name: string; value: string }[];
  batch: boolean;
};

export type SinkFaults = {
  /** Requests per 1-second window for this key; unset means unlimited. */
  ratePerSec?: number;
  /** The next `count` send requests fail with `status` and store nothing. */
  failNext?: { count: number; status: number; name?: string };
  /** Delay before answering; an idempotency key stays "in flight" for its length. */
  latencyMs?: number;
  /** The next N sends are stored and their key completed, then the socket is destroyed unanswered. */
  dropAfterAccept?: number;
  /**
   * Every send is refused as over the team's daily or monthly email quota (429
   * `daily_quota_exceeded` / `monthly_quota_exceeded`) until the fault is cleared or replaced.
   */
  quotaExceeded?: 'daily' | 'monthly';
};

export type MessageFilter = { to?: string; apiKey?: string };

export type MailSinkOptions = {
  port?: number;
  host?: string;
  /** The sink's clock (ms since epoch): idempotency-key expiry, rate windows, receivedAt. */
  now?: () => number;
  /**
   * False keeps each message without its html and text (GET /emails/:id answers them as null):
   * for a bench whose 100,000 emails would not fit in the sink's heap. Default true.
   */
  keepBodies?: boolean;
};

export type MailSink = {
  url: string;
  port: number;
  close(): Promise<void>;
  messages(filter?: MessageFilter): SinkMessage[];
  clear(): void;
  setFaults(apiKey: string, faults: SinkFaults): void;
};
