import { readFile } from 'node:fs/promises';

/**
 * The fixtures carry the dates of the day they were written; the demo and `npm run dev` want
 * postings that look fresh (the cycle ignores postings older than RETENTION_DAYS). A kind moves
 * every date of its fixture by the one offset this returns, so its newest date lands an hour
 * before `now` and the gaps between postings stay as documented.
 */
export function offsetToNow(newestInFixture: Date, now: Date): number {
  return now.getTime() - 3_600_000 - newestInFixture.getTime();
}

export async function readFixtureJson(kind: string, file: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(`../fixtures/${kind}/${file}`, import.meta.url), 'utf8'));
}
