/**
 * npm run bench:cold-start — what a cold serverless instance costs the first caller: `next start`
 * of the existing production build, started fresh `--runs` times against the emulator, the mail
 * sink and the sample feed. Each time, once the server says it is ready (no request has touched
 * a route yet), one authorised GET /api/cron runs a real cycle (the feed's postings stored, the
 * lock taken and released, the run recorded), then a second one on the now-warm instance.
 * Prints each start and the medians. Several --dist-dir builds take turns (A/B of a change).
 *
 *   npm run build && npm run bench:cold-start
 *   npm run bench:cold-start -- --runs 9 --dist-dir .next-a --dist-dir .next-b
 *
 * (`NEXT_DIST_DIR=.next-a npm run build` builds into another folder; Next then adds that folder to
 * tsconfig.json's include, which is no change to commit.)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startMailSink } from '../mail-sink/server';
import { SAMPLE_FEED_PATH, startFeedServer } from '../sample-feed/server';
import { startFirestoreEmulator } from '../stack/firestore-emulator';
import { localEnv } from '../stack/local-env';
import { freePort } from './free-port';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'dist-dir': { type: 'string', multiple: true, default: ['.next'] },
    'emulator-port': { type: 'string', default: '0' },
  },
});
const RUNS = Number(values.runs);
const NEXT_BIN = fileURLToPath(new URL('../../node_modules/.bin/next', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Start = { readyMs: number; firstMs: number; firstRunMs: number; secondMs: number };

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The whole request as the caller sees it, and the cycle's own `durationMs` inside it. */
async function timedCron(url: string, secret: string): Promise<{ ms: number; status: number; runMs: number; body: string }> {
  const started = performance.now();
  const res = await fetch(`${url}/api/cron`, { headers: { authorization: `Bearer ${secret}` }, signal: AbortSignal.timeout(120_000) });
  const body = await res.text();
  const ms = performance.now() - started;
  const runMs = res.ok ? ((JSON.parse(body) as { durationMs?: number }).durationMs ?? NaN) : NaN;
  return { ms, status: res.status, runMs, body };
}

async function coldStart(env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const spawned = performance.now();
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output: string[] = [];
  child.stderr.on('data', (c: Buffer) => output.push(c.toString()));
  try {
    // Ready by the server's own word, so that no probe request warms a route before the measured one.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        output.push(c.toString());
        if (/Ready in/.test(output.join(''))) resolve();
      });
      child.once('exit', (code) => reject(new Error(`next start exited (${code}):\n${output.join('').slice(-2000)}`)));
    });
    const readyMs = performance.now() - spawned;
    const url = `http://127.0.0.1:${port}`;
    const first = await timedCron(url, env.CRON_SECRET);
    const second = await timedCron(url, env.CRON_SECRET);
    if (first.status !== 200)
      throw new Error(`first GET /api/cron answered ${first.status} ${first.body}:\n${output.join('').slice(-2000)}`);
    return { readyMs, firstMs: first.ms, firstRunMs: first.runMs, secondMs: second.ms };
  } finally {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    await gone;
  }
}

const emulatorPort = Number(values['emulator-port']) || (await freePort());
const emulator = await startFirestoreEmulator({ port: emulatorPort });
const sink = await startMailSink({ port: 0 });
const feeds = await startFeedServer({ port: 0 });
const builds = values['dist-dir'];
const starts = new Map<string, Start[]>(builds.map((dir) => [dir, []]));
const ms = (x: number) => `${x.toFixed(0)} ms`;
try {
  // Builds take turns, start by start, so a machine busy with something else slows them alike.
  for (let i = 0; i < RUNS; i++) {
    for (const dir of builds) {
      // A project of its own per start: every first request stores the same postings into an empty store.
      const env = localEnv(
        { firestore: emulatorPort, mailSink: 0, feed: 0, app: 0 },
        {
          FIREBASE_PROJECT_ID: `cold-${randomBytes(4).toString('hex')}`,
          RESEND_BASE_URL: sink.url,
          FEED_URLS: `sample=${feeds.url}${SAMPLE_FEED_PATH}`,
          FIRESTORE_EMULATOR_HOST: emulator.host,
          NEXT_DIST_DIR: dir,
        },
      );
      const start = await coldStart(env);
      starts.get(dir)!.push(start);
      console.log(
        `${dir} start ${i + 1}: ready ${ms(start.readyMs)}, first GET /api/cron ${ms(start.firstMs)} (its cycle ${ms(start.firstRunMs)}), second ${ms(start.secondMs)}`,
      );
    }
  }
  for (const [dir, list] of starts) {
    const m = (pick: (s: Start) => number) => ms(median(list.map(pick)));
    console.log(
      `${dir}, median of ${RUNS}: ready ${m((s) => s.readyMs)}, first request ${m((s) => s.firstMs)} (its cycle ${m((s) => s.firstRunMs)}), second ${m((s) => s.secondMs)}`,
    );
  }
} finally {
  await feeds.close();
  await sink.close();
  await emulator.stop();
}
