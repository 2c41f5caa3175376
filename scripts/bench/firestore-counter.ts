/**
 * Counts what this process asks of Firestore, by wrapping prototypes of the @google-cloud/firestore
 * copy that firebase-admin loads (resolved from firebase-admin's own location, so a nested copy
 * would be the one patched). Counted, for the whole process (every Firestore instance, every caller):
 *
 * - reads: documents as Firestore bills them. A document lookup (DocumentReference.get,
 *   Firestore.getAll, Transaction.get/getAll of refs) costs one per ref asked, found or missing;
 *   a query costs one per document returned, at least 1; an aggregation (count()) one per 1,000
 *   entries counted, at least 1. A ref asked twice in one getAll is one read (the client dedupes).
 *   Choke points: DocumentReader._get, Query._get, AggregateQuery._get.
 * - writes: documents written by a commit that succeeded — the ops of a WriteBatch, of a single
 *   DocumentReference.create/set/update/delete (which the client sends as a one-op batch, so it is
 *   counted once, here), of a transaction's commit, of a BulkWriter batchWrite (its OK statuses).
 *   Choke point: the commit/batchWrite RPC itself, so nothing is counted twice.
 * - roundTrips: RPCs started (Firestore.request / requestStream): batchGetDocuments, runQuery,
 *   runAggregationQuery, commit, batchWrite, rollback, listDocuments… A transaction attempt is its
 *   own RPCs (the first read starts it lazily; then its commit, or a rollback).
 *
 * Not seen: retries the client makes below these methods (gax retries of a unary call such as an
 * ABORTED/UNAVAILABLE commit, backoff re-opens of a stream) count as one round trip; a stream the
 * client resumes after partial progress (getAll, runQuery) is a new round trip. Query.stream(),
 * explain() and onSnapshot documents are not counted as reads (the app uses none of them; their
 * RPCs still count, except the long-lived `listen` stream). Failed reads and failed commits count a
 * round trip but no reads or writes. Counts are process-wide: anything else running in the process
 * (another Firestore instance, a concurrent test) is in them.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type FirestoreCounts = { reads: number; writes: number; roundTrips: number };

export type FirestoreCounter = {
  /** Counts since this counter was made or last reset. */
  snapshot(): FirestoreCounts;
  /** RPCs by method name since this counter was made or last reset, e.g. { commit: 3, runQuery: 1 }. */
  rpcs(): Record<string, number>;
  reset(): void;
  /** Stops counting for this counter; the prototypes are put back once every counter is restored. */
  restore(): void;
  /** The @google-cloud/firestore entry point that was patched. */
  readonly target: string;
};

type Fn = (...args: any[]) => any;
type State = {
  totals: FirestoreCounts;
  rpcs: Map<string, number>;
  counters: number;
  unpatch: () => void;
  target: string;
};

const KEY = Symbol.for('scout.bench.firestore-counter');
const global = globalThis as { [KEY]?: State };

/** The @google-cloud/firestore module firebase-admin's getFirestore() instantiates. */
export function resolveFirestoreModule(): { path: string; module: Record<string, any> } {
  const require = createRequire(import.meta.url);
  const adminEntry = require.resolve('firebase-admin/firestore');
  const path = require.resolve('@google-cloud/firestore', { paths: [dirname(adminEntry)] });
  return { path, module: require(path) };
}

function install(): State {
  const { path, module: gcf } = resolveFirestoreModule();
  const require = createRequire(path);
  const src = dirname(path);
  const { DocumentReader } = require(join(src, 'document-reader.js'));
  const { AggregateQuery } = require(join(src, 'reference', 'aggregate-query.js'));

  const state: State = { totals: { reads: 0, writes: 0, roundTrips: 0 }, rpcs: new Map(), counters: 0, unpatch: () => {}, target: path };
  const originals: [object, string, Fn][] = [];
  const wrap = (proto: any, name: string, make: (original: Fn) => Fn) => {
    if (typeof proto?.[name] !== 'function') throw new Error(`firestore-counter: ${name} not found in ${path}`);
    originals.push([proto, name, proto[name]]);
    proto[name] = make(proto[name]);
  };
  const rpc = (method: string) => {
    state.totals.roundTrips += 1;
    state.rpcs.set(method, (state.rpcs.get(method) ?? 0) + 1);
  };
  /** Adds reads once the call succeeds. */
  const countReads = (readsOf: (self: any, result: any) => number) => (original: Fn) =>
    async function (this: any, ...args: any[]) {
      const result = await original.apply(this, args);
      state.totals.reads += readsOf(this, result);
      return result;
    };

  wrap(
    gcf.Firestore.prototype,
    'request',
    (original) =>
      async function (this: any, method: string, request: any, ...rest: any[]) {
        rpc(method);
        const response = await original.call(this, method, request, ...rest);
        if (method === 'commit') state.totals.writes += request?.writes?.length ?? 0;
        if (method === 'batchWrite') state.totals.writes += (response?.status ?? []).filter((s: any) => !s?.code).length;
        return response;
      },
  );
  wrap(
    gcf.Firestore.prototype,
    'requestStream',
    (original) =>
      function (this: any, method: string, ...rest: any[]) {
        if (method !== 'listen') rpc(method);
        return original.call(this, method, ...rest);
      },
  );
  wrap(
    DocumentReader.prototype,
    '_get',
    countReads((reader) => reader.retrievedDocuments.size),
  );
  wrap(
    gcf.Query.prototype,
    '_get',
    countReads((_, response) => Math.max(1, response.result.size)),
  );
  wrap(
    AggregateQuery.prototype,
    '_get',
    countReads((_, response) => {
      const count = response.result.data()?.count;
      return typeof count === 'number' ? Math.max(1, Math.ceil(count / 1000)) : 1;
    }),
  );
  state.unpatch = () => {
    for (const [proto, name, original] of originals.reverse()) (proto as Record<string, Fn>)[name] = original;
  };
  return state;
}

/** Patches the Firestore client once per process; every call returns an independent counter. */
export function instrumentFirestore(): FirestoreCounter {
  const state = (global[KEY] ??= install());
  state.counters += 1;
  let base = { ...state.totals };
  let baseRpcs = new Map(state.rpcs);
  let restored = false;
  return {
    target: state.target,
    snapshot: () => ({
      reads: state.totals.reads - base.reads,
      writes: state.totals.writes - base.writes,
      roundTrips: state.totals.roundTrips - base.roundTrips,
    }),
    rpcs: () => {
      const out: Record<string, number> = {};
      for (const [method, n] of state.rpcs) if (n - (baseRpcs.get(method) ?? 0) > 0) out[method] = n - (baseRpcs.get(method) ?? 0);
      return out;
    },
    reset() {
      base = { ...state.totals };
      baseRpcs = new Map(state.rpcs);
    },
    restore() {
      if (restored) return;
      restored = true;
      state.counters -= 1;
      if (state.counters === 0 && global[KEY] === state) {
        state.unpatch();
        delete global[KEY];
      }
    },
  };
}
