import { readFileSync } from 'node:fs';

export { json, readOnce } from '../../../scripts/sample-feed/read-once';

/** A fixture exactly as the research step saved it (the sample kinds serve it re-dated). */
export function readKindFixture(kind: string, file: string): string {
  return readFileSync(new URL(`../../../scripts/sample-feed/fixtures/${kind}/${file}`, import.meta.url), 'utf8');
}
