import type { Firestore } from 'firebase-admin/firestore';
import { COLLECTIONS } from '../../store/collections';
import { isAlreadyExists } from '../../store/firestore-errors';
import { SCHEMA_VERSION } from './migrations';
import { readSchema, schemaNotice, schemaRef, standingOf, type SchemaStanding } from './schema-version';

export type SchemaCheck = {
  standing: SchemaStanding;
  /** The store's version; 0 for a store with no schema document that older code has used. */
  stored: number;
  code: number;
  /** This call stamped a fresh store with the code's version. */
  stamped: boolean;
};

/** Thrown by a cycle on a store behind the code: nothing of the run is done until `scout migrate` has run. */
export class SchemaBehind extends Error {
  constructor(readonly check: SchemaCheck) {
    super(schemaNotice(check.stored, check.code)!);
    this.name = 'SchemaBehind';
  }
}

/**
 * Where the store stands against this code, for a cycle: one read of `schema/current` (not
 * cached: a cache would hide a store rolled back or migrated under a running instance).
 *
 * A store without it is either fresh or one that code from before migrations has used. Fresh is
 * told by four queries of at most one document each, made only then: no run record, no cursor,
 * no day document of the first ledger and no subscriber with the old `minBudget` — every store
 * older code ran a cycle on has one of these (its cursors never expire; queued items, which are
 * written only by cycles, expire no later than the runs that wrote them). With `stamp` (a run
 * that commits), a fresh store is then stamped with the code's version by create(), so runs that
 * start together on it agree: the one whose create() loses reads the winner's. The stamp comes
 * before anything else the run writes, so a run that sees another's writes sees its stamp too.
 */
export async function checkSchema(db: Firestore, input: { now: Date; stamp: boolean; code?: number }): Promise<SchemaCheck> {
  const code = input.code ?? SCHEMA_VERSION;
  const stored = await readSchema(db);
  if (stored) return { standing: standingOf(stored.version, code), stored: stored.version, code, stamped: false };
  if (!(await isFreshStore(db))) {
    // A run that stamped the store meanwhile wrote its stamp before anything this probe found.
    const again = await readSchema(db);
    const version = again?.version ?? 0;
    return { standing: standingOf(version, code), stored: version, code, stamped: false };
  }
  if (!input.stamp) return { standing: 'current', stored: code, code, stamped: false };
  try {
    await schemaRef(db).create({ version: code, origin: 'fresh', applying: null, applied: [], stampedAt: input.now });
    return { standing: 'current', stored: code, code, stamped: true };
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const winner = (await readSchema(db))!.version;
    return { standing: standingOf(winner, code), stored: winner, code, stamped: false };
  }
}

async function isFreshStore(db: Firestore): Promise<boolean> {
  const found = await Promise.all([
    db.collection(COLLECTIONS.runs).select().limit(1).get(),
    db.collection(COLLECTIONS.cursors).select().limit(1).get(),
    db.collection(COLLECTIONS.deliveries).orderBy('day').select().limit(1).get(),
    db.collection(COLLECTIONS.subscribers).orderBy('minBudget').select().limit(1).get(),
  ]);
  return found.every((snap) => snap.empty);
}
