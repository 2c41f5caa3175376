/**
 * Counts what this process asks of Firestore, by wrapping prototypes of the @google-cloud/firestore
 * copy that firebase-admin loads (resolved from firebase-admin's own location, so a nested copy
 * would be the one patched). Counted, for the whole process (every Firestore instance, every caller):
 *
 * - reads: documents as Firestore bills them. A document lookup (DocumentReference.get,
 *   Firestore.getAll, Transaction.get/getAll of refs) costs one per ref asked, found or missing;
 *   a query costs one per document returned, at least 1; an aggregation (count()) one per 1,000
 *   entries counted, at least 1. A ref asked twice in one getAll is one read (the client dedupes).
 *   Choke points: DocumentReader._get, Query._get, Query.stream, AggregateQuery._get.
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
 * client resumes after partial progress (getAll, runQuery) is a new round trip. Query.stream()
 * counts as its get() would, one read per document as it passes (at least 1): the flush streams
 * its due query. explain() and onSnapshot documents are not counted as reads (the app uses
 * neither; their RPCs still count, except the long-lived `listen` stream). Failed reads and failed commits count a
 * round trip but no reads or writes. Counts are process-wide: anything else running in the process
 * (another Firestore instance, a concurrent test) is in them.
 *
 * byCollection() splits the reads and writes by the collection of the document (its parent's id,
 * so a subcollection counts under its own name) and says which of the writes were deletes: the
 * bill prices a delete apart from a write (bill.ts), and attributes what a run did by collection.
 */
import { createRequire } from 'node:module';
import { Transform } from 'node:stream';
import { dirname, join } from 'node:path';

export type FirestoreCounts = { reads: number; writes: number; roundTrips: number };
/** One collection's share: `writes` counts deletes too, as FirestoreCounts does; `deletes` says how many of them were. */
export type CollectionCounts = { reads: number; writes: number; deletes: number };
export type CountsByCollection = Record<string, CollectionCounts>;
/** What was done inside one lane: its totals, and its reads and writes by collection. */
export type LaneCounts = FirestoreCounts & { collections: CountsByCollection };

export type FirestoreCounter = {
  /** Counts since this counter was made or last reset. */
  snapshot(): FirestoreCounts;
  /** RPCs by method name since this counter was made or last reset, e.g. { commit: 3, runQuery: 1 }. */
  rpcs(): Record<string, number>;
  /** Reads and writes since this counter was made or last reset, by collection id (e.g. `users`). */
  byCollection(): CountsByCollection;
  /**
   * Counts since this counter was made or last reset of the work done inside a lane: the async
   * context the `lane` resolver given to instrumentFirestore names (the run's sender, which works
   * alongside the claim and the flush, see lib/outbox/run-sender.ts).
   */
  byLane(): Record<string, LaneCounts>;
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
  collections: Map<string, CollectionCounts>;
  counters: number;
  unpatch: () => void;
  target: string;
  lanes: Map<string, { totals: FirestoreCounts; collections: Map<string, CollectionCounts> }>;
  lane: () => string | undefined;
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

  const state: State = {
    totals: { reads: 0, writes: 0, roundTrips: 0 },
    rpcs: new Map(),
    collections: new Map(),
    counters: 0,
    unpatch: () => {},
    target: path,
    lanes: new Map(),
    lane: () => undefined,
  };
  const inLane = (add: Partial<FirestoreCounts>, collection?: string, deletes = 0) => {
    const name = state.lane();
    if (name === undefined) return;
    const lane = state.lanes.get(name) ?? { totals: { reads: 0, writes: 0, roundTrips: 0 }, collections: new Map() };
    lane.totals.reads += add.reads ?? 0;
    lane.totals.writes += add.writes ?? 0;
    lane.totals.roundTrips += add.roundTrips ?? 0;
    if (collection !== undefined) {
      const c = lane.collections.get(collection) ?? { reads: 0, writes: 0, deletes: 0 };
      c.reads += add.reads ?? 0;
      c.writes += add.writes ?? 0;
      c.deletes += deletes;
      lane.collections.set(collection, c);
    }
    state.lanes.set(name, lane);
  };
  const originals: [object, string, Fn][] = [];
  const wrap = (proto: any, name: string, make: (original: Fn) => Fn) => {
    if (typeof proto?.[name] !== 'function') throw new Error(`firestore-counter: ${name} not found in ${path}`);
    originals.push([proto, name, proto[name]]);
    proto[name] = make(proto[name]);
  };
  const rpc = (method: string) => {
    state.totals.roundTrips += 1;
    inLane({ roundTrips: 1 });
    state.rpcs.set(method, (state.rpcs.get(method) ?? 0) + 1);
  };
  const tally = (collection: string, add: Partial<CollectionCounts>) => {
    const c = state.collections.get(collection) ?? { reads: 0, writes: 0, deletes: 0 };
    c.reads += add.reads ?? 0;
    c.writes += add.writes ?? 0;
    c.deletes += add.deletes ?? 0;
    state.collections.set(collection, c);
  };
  /** Adds reads once the call succeeds, each to the collection it was read from. */
  const countReads = (readsOf: (self: any, result: any) => [collection: string, reads: number][]) => (original: Fn) =>
    async function (this: any, ...args: any[]) {
      const result = await original.apply(this, args);
      for (const [collection, reads] of readsOf(this, result)) {
        state.totals.reads += reads;
        inLane({ reads }, collection);
        tally(collection, { reads });
      }
      return result;
    };
  /** A commit's or batchWrite's write: its document's collection, and whether it deletes it. */
  const countWrite = (write: any) => {
    const name: string = write?.update?.name ?? write?.delete ?? write?.transform?.document ?? '';
    state.totals.writes += 1;
    inLane({ writes: 1 }, collectionOf(name), write?.delete ? 1 : 0);
    tally(collectionOf(name), { writes: 1, deletes: write?.delete ? 1 : 0 });
  };

  wrap(
    gcf.Firestore.prototype,
    'request',
    (original) =>
      async function (this: any, method: string, request: any, ...rest: any[]) {
        rpc(method);
        const response = await original.call(this, method, request, ...rest);
        if (method === 'commit') for (const write of request?.writes ?? []) countWrite(write);
        if (method === 'batchWrite')
          (response?.status ?? []).forEach((s: any, i: number) => {
            if (!s?.code) countWrite(request?.writes?.[i]);
          });
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
    countReads((reader) => [...reader.retrievedDocuments.keys()].map((name: string) => [collectionOf(name), 1])),
  );
  wrap(
    gcf.Query.prototype,
    '_get',
    countReads((query, response) => [[query._queryOptions.collectionId, Math.max(1, response.result.size)]]),
  );
  // A streamed query is billed as its get() is: one read per document returned, at least 1. Counted
  // as the documents pass, so the stream keeps its backpressure; a stream left early counts what it gave.
  wrap(
    gcf.Query.prototype,
    'stream',
    (original) =>
      function (this: any, ...args: any[]) {
        const source = original.apply(this, args);
        const collection: string = this._queryOptions.collectionId;
        let documents = 0;
        const counted = new Transform({
          objectMode: true,
          transform(doc, _encoding, callback) {
            documents += 1;
            state.totals.reads += 1;
            tally(collection, { reads: 1 });
            callback(null, doc);
          },
          flush(callback) {
            if (documents === 0) {
              state.totals.reads += 1;
              tally(collection, { reads: 1 });
            }
            callback();
          },
        });
        source.on('error', (error: Error) => counted.destroy(error));
        counted.on('close', () => source.destroy());
        return source.pipe(counted);
      },
  );
  wrap(
    AggregateQuery.prototype,
    '_get',
    countReads((aggregate, response) => {
      const count = response.result.data()?.count;
      return [[aggregate._query._queryOptions.collectionId, typeof count === 'number' ? Math.max(1, Math.ceil(count / 1000)) : 1]];
    }),
  );
  state.unpatch = () => {
    for (const [proto, name, original] of originals.reverse()) (proto as Record<string, Fn>)[name] = original;
  };
  return state;
}

/** Patches the Firestore client once per process; every call returns an independent counter. */
export function instrumentFirestore(options: { lane?: () => string | undefined } = {}): FirestoreCounter {
  const state = (global[KEY] ??= install());
  state.counters += 1;
  if (options.lane) state.lane = options.lane;
  let base = { ...state.totals };
  let baseLanes = copyLanes(state.lanes);
  let baseRpcs = new Map(state.rpcs);
  let baseCollections = copyCollections(state.collections);
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
    byCollection: () => {
      const out: CountsByCollection = {};
      for (const [collection, c] of state.collections) {
        const b = baseCollections.get(collection) ?? { reads: 0, writes: 0, deletes: 0 };
        const d = { reads: c.reads - b.reads, writes: c.writes - b.writes, deletes: c.deletes - b.deletes };
        if (d.reads > 0 || d.writes > 0) out[collection] = d;
      }
      return out;
    },
    byLane: () => {
      const out: Record<string, LaneCounts> = {};
      for (const [name, lane] of state.lanes) {
        const b = baseLanes.get(name) ?? { totals: { reads: 0, writes: 0, roundTrips: 0 }, collections: new Map() };
        const collections: CountsByCollection = {};
        for (const [collection, c] of lane.collections) {
          const was = b.collections.get(collection) ?? { reads: 0, writes: 0, deletes: 0 };
          const d = { reads: c.reads - was.reads, writes: c.writes - was.writes, deletes: c.deletes - was.deletes };
          if (d.reads > 0 || d.writes > 0) collections[collection] = d;
        }
        const t = lane.totals;
        out[name] = {
          reads: t.reads - b.totals.reads,
          writes: t.writes - b.totals.writes,
          roundTrips: t.roundTrips - b.totals.roundTrips,
          collections,
        };
      }
      return out;
    },
    reset() {
      base = { ...state.totals };
      baseLanes = copyLanes(state.lanes);
      baseRpcs = new Map(state.rpcs);
      baseCollections = copyCollections(state.collections);
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

/** `projects/p/databases/(default)/documents/users/abc` → `users`: the id of the document's own collection. */
export function collectionOf(documentName: string): string {
  const segments = documentName.split('/');
  return segments.length >= 2 ? segments[segments.length - 2] : '?';
}

const copyLanes = (from: State['lanes']) =>
  new Map([...from].map(([k, v]) => [k, { totals: { ...v.totals }, collections: copyCollections(v.collections) }]));
const copyCollections = (from: Map<string, CollectionCounts>) => new Map([...from].map(([k, v]) => [k, { ...v }]));
