import type { MessageFilter, SinkMessage } from './types';
import { parseAddress } from './validate';

/** "Received" means in to, cc or bcc: that is who a mailbox provider would deliver to. */
function addressedTo(message: SinkMessage, address: string): boolean {
  const wanted = parseAddress(address) ?? address.trim().toLowerCase();
  return [...message.to, ...message.cc, ...message.bcc].some((recipient) => parseAddress(recipient) === wanted);
}

/**
 * `keepBodies: false` keeps every message's envelope (recipients, subject, tags, key) but not its
 * html and text: a bench that sends 100,000 emails needs the count, not 4 GB of markup.
 */
export function createMessageStore({ keepBodies = true }: { keepBodies?: boolean } = {}) {
  const list: SinkMessage[] = [];
  const byId = new Map<string, SinkMessage>();
  const matches = (m: SinkMessage, filter: MessageFilter) =>
    (filter.apiKey === undefined || m.apiKey === filter.apiKey) && (!filter.to || addressedTo(m, filter.to));

  return {
    add(message: SinkMessage) {
      const kept = keepBodies ? message : { ...message, html: null, text: null };
      list.push(kept);
      byId.set(kept.id, kept);
    },
    /** Scoped by key like the real API: another team's email id is simply not found. */
    get(apiKey: string, id: string): SinkMessage | undefined {
      const message = byId.get(id);
      return message?.apiKey === apiKey ? structuredClone(message) : undefined;
    },
    /** Oldest first; copies, so a test cannot edit what the sink recorded. */
    list(filter: MessageFilter = {}): SinkMessage[] {
      return list.filter((m) => matches(m, filter)).map((m) => structuredClone(m));
    },
    /** Without copying: counting 100,000 messages must not clone them all. */
    count(filter: MessageFilter = {}): number {
      let n = 0;
      for (const m of list) if (matches(m, filter)) n++;
      return n;
    },
    clear() {
      list.length = 0;
      byId.clear();
    },
  };
}

export type MessageStore = ReturnType<typeof createMessageStore>;

/** GET /emails/:id in Resend's shape. */
export function toResendEmail(message: SinkMessage) {
  return {
    object: 'email' as const,
    id: message.id,
    to: message.to,
    from: message.from,
    cc: message.cc.length ? message.cc : null,
    bcc: message.bcc.length ? message.bcc : null,
    reply_to: message.replyTo.length ? message.replyTo : null,
    subject: message.subject,
    html: message.html,
    text: message.text,
    tags: message.tags,
    created_at: message.receivedAt,
    scheduled_at: null,
    last_event: 'delivered' as const,
  };
}
