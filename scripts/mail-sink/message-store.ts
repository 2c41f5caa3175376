import type { MessageFilter, SinkMessage } from './types';
import { parseAddress } from './validate';

/** "Received" means in to, cc or bcc: that is who a mailbox provider would deliver to. */
function addressedTo(message: SinkMessage, address: string): boolean {
  const wanted = parseAddress(address) ?? address.trim().toLowerCase();
  return [...message.to, ...message.cc, ...message.bcc].some((recipient) => parseAddress(recipient) === wanted);
}

export function createMessageStore() {
  const list: SinkMessage[] = [];
  const byId = new Map<string, SinkMessage>();

  return {
    add(message: SinkMessage) {
      list.push(message);
      byId.set(message.id, message);
    },
    /** Scoped by key like the real API: another team's email id is simply not found. */
    get(apiKey: string, id: string): SinkMessage | undefined {
      const message = byId.get(id);
      return message?.apiKey === apiKey ? structuredClone(message) : undefined;
    },
    /** Oldest first; copies, so a test cannot edit what the sink recorded. */
    list(filter: MessageFilter = {}): SinkMessage[] {
      return list
        .filter((m) => (filter.apiKey === undefined || m.apiKey === filter.apiKey) && (!filter.to || addressedTo(m, filter.to)))
        .map((m) => structuredClone(m));
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
