import type { DocumentData, Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../../store/collections';
import { toDate } from '../../store/timestamps';

/**
 * `schema/current`: the store's schema version (the last migration applied to it, or the version
 * a fresh store was stamped with) and the migration a `scout migrate` is applying, if one is.
 * One small document: the cycle reads it once a run, `scout migrate` writes it only with guarded
 * updates (apply-migrations.ts), and the first cycle on a fresh store create()s it (check-schema.ts).
 */
export const schemaRef = (db: Firestore) => db.collection(COLLECTIONS.schema).doc('current');

/** The step a `scout migrate` holds: leased to `owner` until `leaseUntil`, resumable from `after`. */
export type Applying = { version: number; name: string; owner: string; leaseUntil: Date; startedAt: Date; after: string | null };
export type AppliedStep = { version: number; name: string; at: Date; owner: string; changed: number };

export type SchemaState = {
  version: number;
  /** How the store came to its first version: `fresh` (stamped by a first run) or `migrated`. */
  origin: 'fresh' | 'migrated';
  applying: Applying | null;
  /** Each step this store was migrated through, oldest first (at most one per migration). */
  applied: AppliedStep[];
};

export async function readSchema(db: Firestore): Promise<SchemaState | null> {
  const snap = await schemaRef(db).get();
  return snap.exists ? schemaFromStored(snap.data()!) : null;
}

export function schemaFromStored(data: DocumentData): SchemaState {
  const applying = data.applying as DocumentData | null | undefined;
  const applied = (data.applied as DocumentData[] | undefined) ?? [];
  return {
    version: typeof data.version === 'number' ? data.version : 0,
    origin: data.origin === 'fresh' ? 'fresh' : 'migrated',
    applying: applying
      ? {
          version: applying.version as number,
          name: applying.name as string,
          owner: applying.owner as string,
          leaseUntil: toDate(applying.leaseUntil) ?? new Date(0),
          startedAt: toDate(applying.startedAt) ?? new Date(0),
          after: (applying.after as string | null | undefined) ?? null,
        }
      : null,
    applied: applied.map((a) => ({
      version: a.version as number,
      name: a.name as string,
      at: toDate(a.at) ?? new Date(0),
      owner: a.owner as string,
      changed: (a.changed as number | undefined) ?? 0,
    })),
  };
}

/**
 * Where a store stands against the code: `current`, `behind` (a migration is to run: `scout
 * migrate`) or `ahead` (migrated by newer code: this is an older version, e.g. after a rollback).
 */
export type SchemaStanding = 'current' | 'behind' | 'ahead';

export const standingOf = (stored: number, code: number): SchemaStanding =>
  stored === code ? 'current' : stored < code ? 'behind' : 'ahead';

/** The line the cycle, `scout status` and the ops page all print for a store that is not current. */
export function schemaNotice(stored: number, code: number): string | null {
  const standing = standingOf(stored, code);
  if (standing === 'behind')
    return `the store is at schema version ${stored} and this code needs ${code}: run \`scout migrate\` (docs/operations.md#schema-version)`;
  if (standing === 'ahead') return `the store is at schema version ${stored}, newer than this code's ${code} (a rollback?)`;
  return null;
}
