import { readFile } from 'node:fs/promises';

/**
 * The board fixtures are dated July 2026 (when the research step wrote them). The local stack
 * replays the bundled sample's day — `npm run demo` calls the cycle at 2026-11-30T06:00Z, and so
 * do the tests — so each board kind serves its fixture moved onto that day: the newest job at
 * 05:00Z, every other one as many days older as it was, all inside the 30-day retention window.
 */
export const SAMPLE_NEWEST = Date.parse('2026-11-30T05:00:00Z');

/** Shifts every time of one fixture by the same amount, so its newest becomes SAMPLE_NEWEST. */
export function onSampleDay(times: number[]): (time: number) => number {
  const offset = SAMPLE_NEWEST - Math.max(...times);
  return (time) => time + offset;
}

/** A fixture file next to the kinds, as text. */
export async function readBoardFixture(kind: string, file: string): Promise<string> {
  return readFile(new URL(`../fixtures/${kind}/${file}`, import.meta.url), 'utf8');
}
