import { expect } from 'vitest';
import { batchKeyFor } from '../../lib/outbox/outbox-row';

/**
 * Every batch was sealed whole: the rows sharing a batch key are exactly the members the key was
 * made from (the key is the hash of the sorted member list; a final row keeps the key, not the list).
 */
export function expectBatchesWhole(rows: { id: string; get(field: string): unknown }[]) {
  const byKey = new Map<string, string[]>();
  for (const row of rows) {
    const key = row.get('batchKey') as string | null;
    if (key) byKey.set(key, [...(byKey.get(key) ?? []), row.id]);
  }
  for (const [key, members] of byKey) expect(batchKeyFor(members), `the members of ${key}`).toBe(key);
}
