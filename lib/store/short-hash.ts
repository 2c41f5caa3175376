import { createHash } from 'node:crypto';

/** A url- and doc-id-safe digest: the same input always names the same document. */
export function shortHash(text: string, length = 20): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, length);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
