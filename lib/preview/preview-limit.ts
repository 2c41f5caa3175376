import { createHmac } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { countAndRead, rateLimitsCollection, type ClientCount } from '../http/rate-limit';
import { DAY_MS } from '../store/timestamps';

/**
 * Previews one client may ask for per window. A person typing with the debounced script asks a
 * few times a field; 30 a minute leaves room for that and caps what one client costs in reads
 * (PREVIEW_MAX_POSTINGS each).
 */
export const PREVIEW_LIMITS = { windowMs: 60_000, perWindow: 30 } as const;

/**
 * Counts one preview against the client's minute: `rateLimits/preview-client_{hmac(address)}_m{minute}`,
 * the only document a preview writes. Counted before the postings are read, so a refused preview
 * reads nothing more. Like the signup's client limit (lib/http/rate-limit.ts): a server-applied
 * increment read back, so concurrent previews never lose a count; the address stored only as a
 * keyed hash; `expireAt` for the TTL policy.
 */
export async function countPreview(db: Firestore, input: { clientAddress: string; secret: string; now: Date }): Promise<ClientCount> {
  const window = Math.floor(input.now.getTime() / PREVIEW_LIMITS.windowMs);
  const windowEnd = (window + 1) * PREVIEW_LIMITS.windowMs;
  const count = await countAndRead(rateLimitsCollection(db).doc(previewLimitId(input.clientAddress, input.secret, input.now)), {
    kind: 'preview-client-minute',
    expireAt: new Date(windowEnd + DAY_MS),
  });
  if (count <= PREVIEW_LIMITS.perWindow) return { allowed: true };
  return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((windowEnd - input.now.getTime()) / 1000)) };
}

export const previewLimitId = (clientAddress: string, secret: string, now: Date) => {
  const key = createHmac('sha256', secret).update(`preview-client:${clientAddress.trim().toLowerCase()}`).digest('base64url').slice(0, 22);
  return `preview-client_${key}_m${Math.floor(now.getTime() / PREVIEW_LIMITS.windowMs)}`;
};
