import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import { describe, expect, it } from 'vitest';
import { checkDocumentLimits, documentSize, indexEntries, indexEntryBytes, type IndexConfig } from '../../lib/store/firestore-limits';

const none: IndexConfig = { indexes: [], fieldOverrides: [] };

describe('documentSize follows Firestore storage-size formulas', () => {
  it("gives the documentation's worked example its 147 bytes (users/jeff/tasks/my_task_id)", () => {
    // https://firebase.google.com/docs/firestore/storage-size#document-size: 44 (name) + 71 (fields) + 32.
    const task = { type: 'Personal', done: false, priority: 1, description: 'Learn Cloud Firestore' };
    expect(documentSize('users/jeff/tasks', 'my_task_id', task)).toBe(147);
  });

  it('counts UTF-8 bytes, not characters: a CJK character is 3 bytes', () => {
    const ascii = documentSize('c', 'd', { t: 'aaa' });
    expect(documentSize('c', 'd', { t: '漢漢漢' }) - ascii).toBe(6);
  });

  it('sizes maps by their keys and values, arrays by their values, timestamps and numbers at 8, null at 1', () => {
    const base = documentSize('c', 'd', {});
    expect(documentSize('c', 'd', { m: { ab: 'x' } }) - base).toBe(2 + 3 + 2);
    expect(documentSize('c', 'd', { a: ['x', 'y'] }) - base).toBe(2 + 2 + 2);
    expect(documentSize('c', 'd', { t: Timestamp.fromMillis(0), n: 1.5, z: null }) - base).toBe(2 + 8 + 2 + 8 + 2 + 1);
  });

  it('refuses to size a write carrying transforms: only stored documents have a size', () => {
    expect(() => documentSize('c', 'd', { n: FieldValue.increment(1) })).toThrow(/transform/);
  });
});

describe('indexEntries counts what production indexes', () => {
  it('indexes every field both ways, the whole array or map too, each distinct array element once, and map subfields again', () => {
    expect(indexEntries('c', { s: 'x' }, none)).toBe(2);
    expect(indexEntries('c', { a: ['x', 'y', 'x'] }, none)).toBe(2 + 2);
    expect(indexEntries('c', { m: { p: 1, q: { r: 2 } } }, none)).toBe(2 + 2 + 2 + 2);
    // A map inside an array is one element, not subfields.
    expect(indexEntries('c', { a: [{ p: 1 }, { p: 1 }, { p: 2 }] }, none)).toBe(2 + 2);
  });

  it('a map keyed by data costs entries per key: the reason a page of deliveries cannot hold a busy day', () => {
    const page = (n: number) => ({
      deliveries: Object.fromEntries(Array.from({ length: n }, (_, i) => [`job${i}`, { status: 'queued' }])),
    });
    expect(indexEntries('c', page(1_000), none) - indexEntries('c', page(999), none)).toBe(4);
  });

  it('an exemption (indexes: []) removes the field and everything under it; a TTL override keeps only what it lists', () => {
    const config: IndexConfig = {
      indexes: [],
      fieldOverrides: [
        { collectionGroup: 'c', fieldPath: 'payload', indexes: [] },
        { collectionGroup: 'c', fieldPath: 'expireAt', indexes: [{ order: 'ASCENDING', queryScope: 'COLLECTION' }] },
        { collectionGroup: 'other', fieldPath: 's', indexes: [] },
      ],
    };
    const data = { payload: { html: 'x', headers: { a: 'b' } }, expireAt: Timestamp.fromMillis(0), s: 'x' };
    expect(indexEntries('c', data, config)).toBe(0 + 1 + 2);
  });

  it('a composite index costs one entry when every field it names is present, one per element for its array field, exemptions or not', () => {
    const config: IndexConfig = {
      indexes: [
        {
          collectionGroup: 'c',
          fields: [
            { fieldPath: 'uid', order: 'ASCENDING' },
            { fieldPath: 'day', order: 'DESCENDING' },
          ],
        },
        {
          collectionGroup: 'c',
          fields: [
            { fieldPath: 'uid', order: 'ASCENDING' },
            { fieldPath: 'tags', arrayConfig: 'CONTAINS' },
          ],
        },
        {
          collectionGroup: 'c',
          fields: [
            { fieldPath: 'uid', order: 'ASCENDING' },
            { fieldPath: 'missing', order: 'ASCENDING' },
          ],
        },
      ],
      fieldOverrides: [{ collectionGroup: 'c', fieldPath: 'tags', indexes: [] }],
    };
    const single = 2 + 2; // uid, day; tags exempt
    expect(indexEntries('c', { uid: 'u', day: 'd', tags: ['a', 'b', 'c'] }, config)).toBe(single + 1 + 3 + 0);
  });

  it('names what production would refuse, and nothing when a document fits', () => {
    expect(checkDocumentLimits('c', 'd', { s: 'x' }, none).problems).toEqual([]);
    const huge = checkDocumentLimits('c', 'd', { s: 'x'.repeat(1_048_576) }, none);
    expect(huge.problems).toEqual([expect.stringMatching(/bytes, over the 1048576/)]);
    const wide = checkDocumentLimits('c', 'd', { a: Array.from({ length: 40_000 }, (_, i) => i) }, none);
    expect(wide.problems).toEqual([expect.stringMatching(/index entries, over the 40000/)]);
  });
});

describe('indexEntryBytes sizes those entries as Firestore stores them', () => {
  // Every entry of a document c/x starts with its name (2 + 2 + 16) and 32 more bytes.
  const base = 20 + 32;

  it('a single-field entry holds the field name and its value, twice (ascending, descending)', () => {
    expect(indexEntryBytes('c', 'x', { s: 'ab' }, none)).toBe(2 * (base + 2 + 3));
  });

  it('an array: two entries of the whole value, and one per distinct element holding that element', () => {
    expect(indexEntryBytes('c', 'x', { a: ['x', 'y', 'x'] }, none)).toBe(2 * (base + 2 + 6) + 2 * (base + 2 + 2));
  });

  it('an exempt field costs nothing, and a composite entry holds every indexed value without names', () => {
    const config: IndexConfig = {
      indexes: [
        {
          collectionGroup: 'c',
          fields: [
            { fieldPath: 's', order: 'ASCENDING' },
            { fieldPath: 'n', order: 'ASCENDING' },
          ],
        },
      ],
      fieldOverrides: [
        { collectionGroup: 'c', fieldPath: 's', indexes: [] },
        { collectionGroup: 'c', fieldPath: 'n', indexes: [] },
      ],
    };
    expect(indexEntryBytes('c', 'x', { s: 'ab', n: 1 }, config)).toBe(base + 3 + 8);
    // A document without one of the composite's fields is not in it.
    expect(indexEntryBytes('c', 'x', { s: 'ab' }, config)).toBe(0);
  });

  it('a subcollection document also carries its parent document’s name', () => {
    const parent = 6 + 5 + 16; // users/jeff
    const name = 6 + 5 + 6 + 11 + 16; // users/jeff/tasks/my_task_id
    expect(indexEntryBytes('users/jeff/tasks', 'my_task_id', { done: false }, none)).toBe(2 * (name + parent + 32 + 5 + 1));
  });
});
