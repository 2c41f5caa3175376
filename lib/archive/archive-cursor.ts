import { MAX_LINK_JOB_LENGTH } from '../subscribers/link-token';

/**
 * Where a page of the archive continues: the last delivery shown, by the order the archive reads
 * (createdAt, then job id, both newest first). In a link as `before=<createdAt ms>.<jobId>`: the
 * uid is the token's, so a cursor names nothing outside the subscriber's own ledger.
 */
export type ArchiveCursor = { createdAt: Date; jobId: string };

export const formatArchiveCursor = (cursor: ArchiveCursor) => `${cursor.createdAt.getTime()}.${cursor.jobId}`;

/** Null for anything `formatArchiveCursor` did not make (the page answers 400). */
export function parseArchiveCursor(text: string): ArchiveCursor | null {
  const match = /^(\d{1,15})\.([^\u0000-\u001f\u007f/]+)$/.exec(text);
  if (!match || match[2].length > MAX_LINK_JOB_LENGTH) return null;
  const createdAt = new Date(Number(match[1]));
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, jobId: match[2] };
}
