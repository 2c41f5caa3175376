/**
 * What a channel message says, before any platform's format: the formats (formats/) turn it into
 * Slack Block Kit, a Discord embed, Telegram HTML or the webhook's JSON, each escaped its own way.
 * Every string here came from outside (a feed, a board) except the links: formats treat them as
 * hostile text.
 */
export type ChannelPosting = {
  /** The posting's id in jobs/ (the webhook payload's `id`). */
  id: string;
  title: string;
  url: string;
  company: string | null;
  place: string | null;
  /** Pay as a person reads it ("$50–70/hr"), null when the posting states none. */
  pay: string | null;
  /** Why it matched ("keyword: react"), best first. */
  reasons: string[];
  /** The model's fit 0–100 when the verdict stage judged it; null otherwise. */
  fit: number | null;
  /** The keyword score 0–100. */
  score: number;
  /** Where it came from, as a person reads it ("Remotive", "HN Who is hiring"). */
  source: string;
};

export type ChannelLinks = {
  /** The subscriber's signed preferences link: channels are paused or removed there. */
  preferences: string;
  /** The subscriber's archive of what was sent. */
  archive: string;
};

export type ChannelContent =
  | {
      type: 'alert';
      postings: ChannelPosting[];
      /** matches left out of this message (platform limits) */ more: number;
      links: ChannelLinks;
    }
  | {
      type: 'digest';
      /** The subscriber's local day or ISO week the digest is for (`2026-12-06`, `2026-W49`). */
      period: string;
      postings: ChannelPosting[];
      more: number;
      links: ChannelLinks;
    }
  /** Verification: the code the subscriber types back (slack, discord), or none (telegram, webhook). */
  | { type: 'test'; code: string | null; links: ChannelLinks };

/**
 * The request body as sent, frozen in the message row when it is created: a retry sends the same
 * bytes (a webhook receiver deduplicating by `webhook-id` sees the same payload).
 */
export type ChannelRequest = {
  /** The JSON body, exactly. */
  body: string;
};
