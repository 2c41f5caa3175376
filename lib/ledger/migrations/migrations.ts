import { digestDue } from './digest-due';
import type { Migration } from './migration';
import { minPay } from './min-pay';
import { perPairLedger } from './per-pair-ledger';
import { queries } from './queries';
import { shardBucket } from './shard-bucket';

/**
 * Every migration, in the order `scout migrate` applies them: the n-th has version n. A new one
 * goes at the end with the next number, never between; one every store has passed stays, so that
 * a store restored from an old backup can still be brought up to date.
 */
export const MIGRATIONS: readonly Migration[] = [perPairLedger, digestDue, shardBucket, minPay, queries];

/** The schema version this code reads and writes: the last migration's. */
export const SCHEMA_VERSION = MIGRATIONS.length;
