import { createHash } from 'node:crypto';

/** Resend keeps a key for 24 hours; after that the same key starts a new request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

type Entry =
  | { fingerprint: string; createdAt: number; state: 'in_flight' }
  | { fingerprint: string; createdAt: number; state: 'done'; status: number; body: string };

export type IdempotencyDecision =
  | { kind: 'new'; complete(status: number, body: string): void; release(): void }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'conflict'; name: 'invalid_idempotent_request' | 'concurrent_idempotent_requests'; message: string };

/**
 * What "the same request" means: endpoint, batch mode and the raw bytes. Hashing the raw body
 * (not re-serialised JSON) is deliberate — a client that rebuilds its payload with a different
 * key order or timestamp must see the 409 that production would give it.
 */
export function requestFingerprint(path: string, variant: string, raw: Buffer): string {
  return createHash('sha256').update(`${path}\n${variant}\n`).update(raw).digest('hex');
}

export function createIdempotencyStore(now: () => number) {
  // Insertion order is creation order, so expired entries are always at the head.
  const entries = new Map<string, Entry>();
  const slot = (apiKey: string, key: string) => `${apiKey}\u0000${key}`;
  const expired = (entry: Entry, at: number) => at - entry.createdAt >= IDEMPOTENCY_TTL_MS;

  function prune(at: number) {
    for (const [id, entry] of entries) {
      if (entry.state === 'in_flight' || !expired(entry, at)) break;
      entries.delete(id);
    }
  }

  function begin(apiKey: string, key: string, fingerprint: string): IdempotencyDecision {
    const at = now();
    prune(at);
    const id = slot(apiKey, key);
    const existing = entries.get(id);
    if (existing && !(existing.state === 'done' && expired(existing, at))) {
      if (existing.fingerprint !== fingerprint) {
        return {
          kind: 'conflict',
          name: 'invalid_idempotent_request',
          message: 'Same idempotency key used with a different request payload.',
        };
      }
      if (existing.state === 'in_flight') {
        return {
          kind: 'conflict',
          name: 'concurrent_idempotent_requests',
          message: 'Same idempotency key used while original request is still in progress.',
        };
      }
      return { kind: 'replay', status: existing.status, body: existing.body };
    }
    entries.delete(id);
    const entry: Entry = { fingerprint, createdAt: at, state: 'in_flight' };
    entries.set(id, entry);
    // Identity checks: after clear() or expiry the slot may hold someone else's entry.
    return {
      kind: 'new',
      complete(status, body) {
        if (entries.get(id) === entry) entries.set(id, { fingerprint, createdAt: entry.createdAt, state: 'done', status, body });
      },
      release() {
        if (entries.get(id) === entry) entries.delete(id);
      },
    };
  }

  return { begin, clear: () => entries.clear() };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
