// Old path and names, kept until migrate-ledger.ts, backfill-digest-due.ts, backfill-shard-bucket.ts and skip-queued-deliveries.ts are renamed
export { commitAtomicWrites as commitGroups, DELIVERY_BYTES, type AtomicWrite as WriteGroup } from './atomic-writes';
