import { randomBytes } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { inject } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import { subscribersCollection, type Subscriber } from '../../lib/subscribers/subscriber';
import type { CommandContext } from '../../scripts/cli/command';
import { runCli } from '../../scripts/cli/run-cli';

export type CliFixture = {
  db: Firestore;
  now: Date;
  projectId: string;
  /** A command context whose output lands in `lines`. */
  ctx(): CommandContext & { lines: string[] };
  /** Runs `scout <argv>` in-process against this fixture's project. */
  cli(argv: string[]): Promise<{ code: number; out: string[]; err: string[]; opened: boolean }>;
  users(): Promise<Subscriber[]>;
  setStatus(email: string, status: Subscriber['status']): Promise<void>;
  close(): Promise<void>;
};

const noCycle = (): never => {
  throw new Error('this fixture runs no cycle (the scan tests use the test harness)');
};

/** A fresh Firestore project on the shared emulator, so no two tests ever see each other's subscribers. */
export function createCliFixture(): CliFixture {
  process.env.METADATA_SERVER_DETECTION = 'none';
  process.env.FIRESTORE_EMULATOR_HOST = inject('firestoreEmulatorHost');
  const projectId = `scout-cli-${randomBytes(5).toString('hex')}`;
  const db = createFirestore({ projectId });
  const now = new Date('2026-11-30T09:00:00Z');
  return {
    db,
    now,
    projectId,
    ctx() {
      const lines: string[] = [];
      return { db, now, digestHourUtc: 8, out: (line) => lines.push(line), lines, appDeps: noCycle };
    },
    async cli(argv) {
      const out: string[] = [];
      const err: string[] = [];
      let opened = false;
      const code = await runCli(argv, {
        out: (line) => out.push(line),
        err: (line) => err.push(line),
        openDb: () => {
          opened = true;
          return db;
        },
        digestHourUtc: () => 8,
        appDeps: noCycle,
        now: () => now,
      });
      return { code, out, err, opened };
    },
    async users() {
      return (await subscribersCollection(db).get()).docs.map((d) => d.data());
    },
    async setStatus(email, status) {
      const snap = await subscribersCollection(db).where('email', '==', email).get();
      if (snap.size !== 1) throw new Error(`expected one subscriber ${email}, found ${snap.size}`);
      await snap.docs[0].ref.update({ status });
    },
    close: () => db.terminate(),
  };
}
