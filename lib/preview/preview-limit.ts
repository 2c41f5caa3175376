import type { Firestore } from 'firebase-admin/firestore';
import { clientLimitId, countClientRequest, type ClientCount, type ClientLimit } from '../http/client-limit';

/**
 * Previews one client may ask for per window. A person typing with the debounced script asks a
 * few times a field; 30 a minute leaves room for that and caps what one client costs in reads
 * (PREVIEW_MAX_POSTINGS each).
 */
export const PREVIEW_LIMITS = { windowMs: 60_000, perWindow: 30 } as const;

/**
 * `rateLimits/preview-client_{hmac(address)}_m{minute}`, the only document a preview writes: the
 * one per-client limiter (lib/http/client-limit.ts). Counted before the postings are read, so a
 * refused preview reads nothing more.
 */
const PREVIEW_CLIENT_LIMIT: ClientLimit = {
  name: 'preview-client',
  windowLetter: 'm',
  kind: 'preview-client-minute',
  hashedAs: 'preview-client',
  ...PREVIEW_LIMITS,
};

export const countPreview = (db: Firestore, input: { clientAddress: string; secret: string; now: Date }): Promise<ClientCount> =>
  countClientRequest(db, PREVIEW_CLIENT_LIMIT, input);

export const previewLimitId = (clientAddress: string, secret: string, now: Date) =>
  clientLimitId(PREVIEW_CLIENT_LIMIT, clientAddress, secret, now);
