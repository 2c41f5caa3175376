import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const JAR_NAME = 'cloud-firestore-emulator.jar';

export const INSTALL_HELP = `The Cloud Firestore emulator was not found.
Scout's tests and demo run against the official emulator (a Java jar). Install one of:
  - Debian/Ubuntu with Google's apt repository:  apt-get install -y google-cloud-cli-firestore-emulator openjdk-17-jre-headless
  - an existing gcloud SDK:                      gcloud components install cloud-firestore-emulator
  - the Firebase CLI:                            npx firebase-tools setup:emulators:firestore
or point FIRESTORE_EMULATOR_JAR at cloud-firestore-emulator*.jar.
Java 11 or newer is required (apt-get install -y openjdk-17-jre-headless).`;

/** Looks where each official distribution puts the jar, in the order a user would expect to win. */
export function findEmulatorJar(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.FIRESTORE_EMULATOR_JAR) {
    return existsSync(env.FIRESTORE_EMULATOR_JAR) ? env.FIRESTORE_EMULATOR_JAR : null;
  }
  const sdkRoots = [gcloudSdkRoot(), '/usr/lib/google-cloud-sdk', '/usr/share/google-cloud-sdk', join(homedir(), 'google-cloud-sdk')];
  for (const root of sdkRoots) {
    if (!root) continue;
    const jar = join(root, 'platform', 'cloud-firestore-emulator', JAR_NAME);
    if (existsSync(jar)) return jar;
  }
  const firebaseCache = join(homedir(), '.cache', 'firebase', 'emulators');
  if (existsSync(firebaseCache)) {
    const jars = readdirSync(firebaseCache)
      .filter((f) => /^cloud-firestore-emulator.*\.jar$/.test(f))
      .sort();
    if (jars.length > 0) return join(firebaseCache, jars[jars.length - 1]);
  }
  return null;
}

function gcloudSdkRoot(): string | null {
  const result = spawnSync('gcloud', ['info', '--format=value(installation.sdk_root)'], { encoding: 'utf8', timeout: 15_000 });
  return result.status === 0 ? result.stdout.trim() || null : null;
}

/** Returns the Java major version, or null when no java is on PATH. */
export function javaMajorVersion(): number | null {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) return null;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(result.stderr);
  if (!match) return null;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major;
}

export type RunningEmulator = { host: string; stop(): Promise<void> };

export async function startFirestoreEmulator(options: {
  host?: string;
  port: number;
  log?: (line: string) => void;
  /**
   * The emulator's Java heap in MiB. Unset, the JVM takes a quarter of the machine's memory; the
   * bench at U=100,000 (500,000 deliveries, 100,000 email rows with their payloads) fills that
   * (6 GiB here), and a full heap stalls every request in garbage collection.
   */
  maxHeapMb?: number;
}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const hostPort = `${host}:${options.port}`;
  if (await isEmulatorUp(hostPort)) {
    // Someone (another terminal, a previous `npm run dev`) already runs one: share it, never kill it.
    return { host: hostPort, stop: async () => {} };
  }
  const java = javaMajorVersion();
  if (java === null || java < 11) {
    throw new Error(`Java 11 or newer is required for the Firestore emulator (found: ${java ?? 'none'}).\n${INSTALL_HELP}`);
  }
  const jar = findEmulatorJar();
  if (!jar) throw new Error(INSTALL_HELP);

  const child = spawn(
    'java',
    [
      ...(options.maxHeapMb ? [`-Xmx${options.maxHeapMb}m`] : []),
      '-Duser.language=en',
      '-cp',
      jar,
      'com.google.cloud.datastore.emulator.firestore.CloudFirestore',
      'start',
      `--host=${host}`,
      `--port=${options.port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      options.log?.(line);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const deadline = Date.now() + 60_000;
  while (!(await isEmulatorUp(hostPort))) {
    if (child.exitCode !== null) throw new Error(`Firestore emulator exited (${child.exitCode}):\n${output.slice(-20).join('\n')}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Firestore emulator did not answer on ${hostPort} within 60 s:\n${output.slice(-20).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { host: hostPort, stop: () => stopChild(child) };
}

async function isEmulatorUp(hostPort: string): Promise<boolean> {
  try {
    const res = await fetch(`http://${hostPort}/`, { signal: AbortSignal.timeout(1_000) });
    return res.ok;
  } catch {
    return false;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Wipes every document of one project: tests give each file its own project id and clear it in between. */
export async function clearEmulatorProject(hostPort: string, projectId: string): Promise<void> {
  const res = await fetch(`http://${hostPort}/emulator/v1/projects/${projectId}/databases/(default)/documents`, { method: 'DELETE' });
  if (!res.ok) throw new Error(`clearing emulator project ${projectId} failed: ${res.status}`);
}
