import { DocumentReference, FieldValue, GeoPoint, Timestamp } from 'firebase-admin/firestore';

/**
 * Production's per-document limits, which the emulator does not enforce: a write past either one
 * fails in production only. https://firebase.google.com/docs/firestore/quotas
 * ("Maximum size for a document", "Maximum number of index entries for each document").
 */
export const FIRESTORE_LIMITS = { documentBytes: 1_048_576, indexEntries: 40_000 } as const;

/** The parts of firestore.indexes.json that decide how many index entries a document costs. */
export type IndexConfig = {
  indexes: { collectionGroup: string; queryScope?: string; fields: { fieldPath: string; order?: string; arrayConfig?: string }[] }[];
  fieldOverrides: {
    collectionGroup: string;
    fieldPath: string;
    indexes: { order?: string; arrayConfig?: string; queryScope?: string }[];
  }[];
};

/**
 * A document's storage size, by https://firebase.google.com/docs/firestore/storage-size:
 *   string = UTF-8 bytes + 1 (collection ids, document ids, field names, string values)
 *   document name = the size of each collection id and document id in its path + 16
 *   boolean, null = 1; integer, double, timestamp = 8; geopoint = 16; bytes = their length;
 *   reference = the document name size it points at; array = the sum of its values
 *   document = name + every field (name + value) + 32
 * Assumed: a map's size is the sum of its keys (as strings) and values, the page's "calculated the
 * same way as document size" without a name or the 32 bytes a map does not have.
 */
export function documentSize(collection: string, id: string, data: Record<string, unknown>): number {
  return documentNameSize([...collection.split('/'), id]) + mapSize(data) + 32;
}

/**
 * How many index entries a document costs, counted as the limit counts them: single-field
 * entries plus composite entries (https://firebase.google.com/docs/firestore/quotas#indexes).
 *
 * Single-field, by the automatic indexing of Standard edition
 * (https://cloud.google.com/firestore/docs/concepts/index-overview#automatic_indexing):
 *   every field and map subfield, at any depth: 2 entries (ascending and descending), whether it
 *     holds a scalar, an array (the whole array value) or a map (the whole map value);
 *   every array: 1 array-contains entry per distinct element (elements are not subfields: a map
 *     inside an array is one element, not recursed into);
 *   every map: its subfields again, recursively.
 * A fieldOverride (firestore.indexes.json) replaces those defaults for its path and everything
 * under it (subfields inherit a map's settings): `indexes: []` exempts them (0 entries); a listed
 * index costs 1 entry (an order) or one per distinct element (array-contains).
 * Composite: 1 entry per composite index of the collection whose fields are all present (a
 * document missing one is not in the index), times the distinct elements of its array-contains
 * field, if any. Exemptions do not apply: a field exempt from single-field indexes is still
 * indexed by a composite that names it.
 * Assumed: the older wording of the docs, without the whole-value entries of arrays and maps,
 * gives fewer entries; counting them keeps this an upper bound.
 */
export function indexEntries(collection: string, data: Record<string, unknown>, config: IndexConfig): number {
  return indexOf(collection, '', data, config).entries;
}

/**
 * The bytes a document's index entries take in storage, by the same entries indexEntries counts
 * and https://firebase.google.com/docs/firestore/storage-size#index-entry-size:
 *   single-field entry = document name + parent document's name + the field's path (a string) + the value + 32
 *   composite entry    = document name + parent document's name + every indexed value + 32
 * An array-contains entry holds one element as its value. Assumed: a document in a root collection
 * has no parent document, so that part is 0.
 */
export function indexEntryBytes(collection: string, id: string, data: Record<string, unknown>, config: IndexConfig): number {
  return indexOf(collection, id, data, config).bytes;
}

function indexOf(collection: string, id: string, data: Record<string, unknown>, config: IndexConfig): { entries: number; bytes: number } {
  const segments = collection.split('/');
  const base = documentNameSize([...segments, id]) + (segments.length > 1 ? documentNameSize(segments.slice(0, -1)) : 0) + 32;
  const overrides = config.fieldOverrides
    .filter((o) => o.collectionGroup === collection)
    .map((o) => ({ path: parseFieldPath(o.fieldPath), indexes: o.indexes }));
  const total = { entries: 0, bytes: 0 };
  for (const [name, value] of Object.entries(data)) {
    const field = fieldIndex(value, [name], overrides, null, base);
    total.entries += field.entries;
    total.bytes += field.bytes;
  }
  for (const index of config.indexes.filter((i) => i.collectionGroup === collection)) {
    let entries = 1;
    let bytes = base;
    for (const field of index.fields) {
      const value = valueAt(data, parseFieldPath(field.fieldPath));
      if (value === undefined) entries = 0;
      else if (field.arrayConfig) {
        const elements = Array.isArray(value) ? distinct(value) : [];
        entries *= elements.length;
        // Each entry holds one element: the average element stands for them all.
        bytes += elements.length > 0 ? elements.reduce<number>((n, e) => n + valueSize(e), 0) / elements.length : 0;
      } else bytes += valueSize(value);
    }
    total.entries += entries;
    total.bytes += entries * bytes;
  }
  return total;
}

export type LimitsCheck = { bytes: number; indexEntries: number; problems: string[] };

/** Both figures for one document, and what in them production would refuse (nothing: `problems` is empty). */
export function checkDocumentLimits(collection: string, id: string, data: Record<string, unknown>, config: IndexConfig): LimitsCheck {
  const bytes = documentSize(collection, id, data);
  const entries = indexEntries(collection, data, config);
  const problems: string[] = [];
  if (bytes > FIRESTORE_LIMITS.documentBytes)
    problems.push(`${bytes} bytes, over the ${FIRESTORE_LIMITS.documentBytes} a document may hold`);
  if (entries > FIRESTORE_LIMITS.indexEntries)
    problems.push(`${entries} index entries, over the ${FIRESTORE_LIMITS.indexEntries} a document may have`);
  return { bytes, indexEntries: entries, problems };
}

type Override = { path: string[]; indexes: IndexConfig['fieldOverrides'][number]['indexes'] };

function fieldIndex(
  value: unknown,
  path: string[],
  overrides: Override[],
  inherited: Override | null,
  base: number,
): { entries: number; bytes: number } {
  if (value === undefined) return { entries: 0, bytes: 0 }; // never stored: the client drops it (ignoreUndefinedProperties)
  const own = overrides.find((o) => samePath(o.path, path)) ?? inherited;
  const elements = Array.isArray(value) ? distinct(value) : [];
  const entryOf = (v: unknown) => base + stringSize(path.join('.')) + valueSize(v);
  const elementBytes = elements.reduce<number>((n, e) => n + entryOf(e), 0);
  const total = own
    ? own.indexes.reduce(
        (t, index) =>
          index.arrayConfig
            ? { entries: t.entries + elements.length, bytes: t.bytes + elementBytes }
            : { entries: t.entries + 1, bytes: t.bytes + entryOf(value) },
        { entries: 0, bytes: 0 },
      )
    : { entries: 2 + elements.length, bytes: 2 * entryOf(value) + elementBytes };
  if (isMap(value))
    for (const [key, sub] of Object.entries(value)) {
      const field = fieldIndex(sub, [...path, key], overrides, own, base);
      total.entries += field.entries;
      total.bytes += field.bytes;
    }
  return total;
}

function valueSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'number' || typeof value === 'bigint') return 8;
  if (typeof value === 'string') return stringSize(value);
  if (value instanceof Date || value instanceof Timestamp) return 8;
  if (value instanceof GeoPoint) return 16;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof DocumentReference) return documentNameSize(value.path.split('/'));
  if (Array.isArray(value)) return value.reduce<number>((n, element) => n + (element === undefined ? 0 : valueSize(element)), 0);
  if (isMap(value)) return mapSize(value);
  throw new Error(`cannot size ${describe(value)}: size the document as stored, not a write carrying transforms`);
}

const stringSize = (text: string) => Buffer.byteLength(text, 'utf8') + 1;
const documentNameSize = (segments: string[]) => segments.reduce((n, segment) => n + stringSize(segment), 0) + 16;

function mapSize(map: Record<string, unknown>): number {
  let size = 0;
  for (const [key, value] of Object.entries(map)) if (value !== undefined) size += stringSize(key) + valueSize(value);
  return size;
}

function isMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const describe = (value: unknown) => (value instanceof FieldValue ? 'a FieldValue transform' : typeof value);

/** Two equal values make one index entry: the key is the value, typed, as Firestore compares it. */
function distinct(values: unknown[]): unknown[] {
  const seen = new Map<string, unknown>();
  for (const v of values) if (v !== undefined && !seen.has(valueKey(v))) seen.set(valueKey(v), v);
  return [...seen.values()];
}

function valueKey(value: unknown): string {
  if (value instanceof Date) return `t:${value.getTime() * 1e6}`;
  if (value instanceof Timestamp) return `t:${value.seconds * 1e9 + value.nanoseconds}`;
  if (value instanceof GeoPoint) return `g:${value.latitude},${value.longitude}`;
  if (value instanceof Uint8Array) return `b:${Buffer.from(value).toString('base64')}`;
  if (value instanceof DocumentReference) return `r:${value.path}`;
  if (Array.isArray(value)) return `a:[${value.map(valueKey).join(',')}]`;
  if (isMap(value))
    return `m:{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${valueKey(value[k])}`)
      .join(',')}}`;
  return `${typeof value}:${JSON.stringify(value)}`;
}

function valueAt(data: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = data;
  for (const segment of path) {
    if (!isMap(value)) return undefined;
    value = value[segment];
  }
  return value;
}

const samePath = (a: string[], b: string[]) => a.length === b.length && a.every((segment, i) => segment === b[i]);

/** `a.b`, or `` a.`x.y` `` for a segment that is not a simple name (https://firebase.google.com/docs/firestore/quotas#collections_documents_and_fields). */
export function parseFieldPath(fieldPath: string): string[] {
  const segments: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < fieldPath.length; i++) {
    const c = fieldPath[i];
    if (quoted && c === '\\') current += fieldPath[++i] ?? '';
    else if (c === '`') quoted = !quoted;
    else if (c === '.' && !quoted) {
      segments.push(current);
      current = '';
    } else current += c;
  }
  segments.push(current);
  return segments;
}
