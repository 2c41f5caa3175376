import type { Firestore } from 'firebase-admin/firestore';
import { SCHEMA_VERSION } from './migrations';
import { readSchema, schemaNotice, type Applying } from './schema-version';

/** The store's schema version against the code's, as `scout status` and the ops page show it (one read). */
export type SchemaView = {
  /** Null while the store has no schema document (no run yet, or only code from before migrations). */
  stored: number | null;
  code: number;
  applying: Applying | null;
  /** What to do, when the store is not at the code's version; null when it is. */
  notice: string | null;
};

export async function readSchemaView(db: Firestore, code = SCHEMA_VERSION): Promise<SchemaView> {
  const state = await readSchema(db);
  if (!state)
    return {
      stored: null,
      code,
      applying: null,
      notice: `no schema version stored yet: the next run stamps a fresh store with ${code}; on a store older code used it refuses until \`scout migrate\``,
    };
  return { stored: state.version, code, applying: state.applying, notice: schemaNotice(state.version, code) };
}

/** One line: `schema: version 4, as this code`, or what to do, with the step a `scout migrate` holds. */
export function schemaText(view: SchemaView): string {
  const base = view.notice ?? `version ${view.stored}, as this code`;
  const a = view.applying;
  const applying = a ? ` (migration ${a.version} ${a.name} taken by ${a.owner}, leased until ${a.leaseUntil.toISOString()})` : '';
  return `schema: ${base}${applying}`;
}
