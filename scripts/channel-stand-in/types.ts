/** The platforms the stand-in answers for; `webhook` is a subscriber's own receiver (`/hooks/{name}`). */
export const STAND_IN_PLATFORMS = ['slack', 'discord', 'telegram', 'webhook'] as const;
export type StandInPlatform = (typeof STAND_IN_PLATFORMS)[number];

/**
 * One request a destination got, in arrival order. `accepted` says whether the platform took the
 * message: answered 2xx, or dropped after taking it (the ambiguous case). A refused request (an
 * injected or enforced 429, a 5xx, a gone answer, a hang) is kept too, with `accepted: false`, so a
 * test can count what a sender tried as well as what arrived.
 */
export type ReceivedRequest = {
  seq: number;
  platform: StandInPlatform;
  /** Slack: the path after /services/; Discord: the webhook id; Telegram: the chat id; webhook: the name. */
  destination: string;
  method: string;
  path: string;
  /** ISO time the request arrived, by the stand-in's clock. */
  at: string;
  /** Lower-cased names; a repeated header joined with ", ". */
  headers: Record<string, string>;
  /** The body exactly as sent: a webhook signature is computed over these bytes. */
  rawBody: string;
  /** JSON, or the fields of a form body; null when it was neither. */
  body: unknown;
  /** The HTTP status answered; null when the socket was dropped or the request left hanging. */
  status: number | null;
  outcome: 'answered' | 'dropped' | 'hung';
  accepted: boolean;
};

export type ReceivedFilter = { destination?: string; platform?: StandInPlatform; /** Refused requests too. */ all?: boolean };

export const FAULT_KINDS = ['rate-limit', 'server-error', 'drop', 'hang', 'gone'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type FaultInput = {
  /** A destination key (see ReceivedRequest.destination), or '*' for every destination. */
  destination: string;
  fault: FaultKind;
  /** Only this platform's requests (a Discord id and a Telegram chat id may look alike). */
  platform?: StandInPlatform;
  /** How many requests it applies to: default 1; 'gone' defaults to every request until cleared. */
  times?: number;
  /** rate-limit: the seconds the 429 asks the sender to wait (Discord's may have a fraction). Default 1. */
  retryAfterSeconds?: number;
  /** server-error: 500, 502 or 503 (default 500); gone on Slack: 404 no_service (default) or 410 channel_is_archived. */
  status?: number;
};

export type TelegramBot = { token: string; username: string; firstName: string; id: number };

/** Who writes to the bot; the stand-in makes one up from the chat id when not given. */
export type TelegramSender = { id?: number; firstName?: string; username?: string; languageCode?: string };

export type TelegramMessageInput = {
  chatId: number | string;
  text: string;
  from?: TelegramSender;
  /** Default: the first bot. */ botToken?: string;
};

/** What the bot's webhook answered to the Update the stand-in posted. */
export type TelegramDelivery =
  | { delivered: true; status: number; body: string; update: unknown }
  | { delivered: false; status: number | null; error: string; update: unknown };

export type TelegramWebhook = { url: string; secretToken: string | null };

export type ChannelStandInOptions = {
  port?: number;
  host?: string;
  /** The stand-in's clock (ms since epoch): rate windows, `date` fields, received times. */
  now?: () => number;
  /** Refuse past each platform's documented rate with its own 429 (docs/channels.md "Local stand-ins"). */
  strictLimits?: boolean;
  /** The bots whose tokens the Bot API knows; any other token gets 401. Default: DEFAULT_TELEGRAM_BOT. */
  telegramBots?: TelegramBot[];
  /** How long a Telegram Update delivery waits for the bot's webhook to answer. Default 10 s. */
  deliveryTimeoutMs?: number;
};

export type ChannelStandIn = {
  /** Origin without a trailing slash; also the Telegram Bot API base (TELEGRAM_API_BASE_URL). */
  url: string;
  port: number;
  /** `${url}/services/${path}`: an incoming-webhook URL whose destination key is `path` (T…/B…/secret). */
  slackUrl(path?: string): string;
  /** `${url}/api/webhooks/${id}/${token}`: destination key `id`. */
  discordUrl(id?: string, token?: string): string;
  /** `${url}/hooks/${name}`: destination key `name`. */
  hookUrl(name: string): string;
  received(filter?: ReceivedFilter): ReceivedRequest[];
  inject(fault: FaultInput): void;
  /** The faults still armed, in the order they apply; `remaining` null means until cleared. */
  faults(): (FaultInput & { remaining: number | null })[];
  /** Clears the faults of one destination key (as injected, '*' included), or all of them. */
  clearFaults(destination?: string): void;
  /** Forgets everything: received requests, faults, rate windows, webhooks set, message counters. */
  reset(): void;
  /** A user writes `text` to the bot in chat `chatId`: the stand-in posts the Update to the bot's webhook. */
  telegramMessage(input: TelegramMessageInput): Promise<TelegramDelivery>;
  /** What setWebhook recorded for a bot (default: the first), or null. */
  telegramWebhook(botToken?: string): TelegramWebhook | null;
  close(): Promise<void>;
};
