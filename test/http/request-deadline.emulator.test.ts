import { readFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Firestore } from 'firebase-admin/firestore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFirestore } from '../../lib/store/firestore';
import { unavailableJson, withDeadline } from '../../lib/http/request-deadline';
import { handleSignupRequest } from '../../lib/subscriptions/handle-signup-request';
import { handleUnsubscribeRequest } from '../../lib/subscriptions/handle-unsubscribe-request';
import { unsubscribeUrl } from '../../lib/subscribers/link-token';
import { unsubscribeServerErrorPage } from '../../lib/subscriptions/unsubscribe-page';
import { createHarness, type Harness } from '../support/harness';

/** A database that takes connections and never answers: what an unreachable Firestore looks like to a request. */
let blackhole: Server;
const held: Socket[] = [];
let silentDb: Firestore;
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  blackhole = createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
  const emulator = process.env.FIRESTORE_EMULATOR_HOST;
  process.env.FIRESTORE_EMULATOR_HOST = `127.0.0.1:${(blackhole.address() as { port: number }).port}`;
  silentDb = createFirestore({ projectId: `scout-blackhole-${randomBytes(4).toString('hex')}` });
  process.env.FIRESTORE_EMULATOR_HOST = emulator;
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => blackhole.close(resolve));
  await h.close();
});

/** The signup route's handler under a deadline of `ms`. */
const signupWithin = (ms: number) =>
  withDeadline((request: Request, deps: typeof h.deps) => handleSignupRequest(request, { ...deps, now: new Date() }), {
    unavailable: unavailableJson,
    ms,
  });

const signupRequest = (email: string) =>
  new Request('http://localhost/api/signup', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, keywords: 'react', mode: 'instant' }),
  });

describe('a person never waits on a database that does not answer', () => {
  it('signup answers 503 with Retry-After by the deadline, and logs it', async () => {
    const lines: string[] = [];
    const res = await signupWithin(300)(signupRequest('ada@example.com'), {
      ...h.deps,
      db: silentDb,
      log: (event) => void lines.push(event),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await res.json()).toEqual({ error: 'temporarily unavailable; try again in a minute' });
    expect(lines).toContain('request.deadline');
  });

  it('a link page answers its own 503 page', async () => {
    const unsubscribe = withDeadline(
      (request: Request, deps: typeof h.deps) =>
        handleUnsubscribeRequest(request, { db: deps.db, config: deps.config, now: new Date(), log: deps.log }),
      { unavailable: unsubscribeServerErrorPage, ms: 300 },
    );
    const url = unsubscribeUrl({ appUrl: 'http://localhost', uid: 'someone', secret: h.config.LINK_SECRET, issuedAt: new Date() });
    const res = await unsubscribe(new Request(url), { ...h.deps, db: silentDb });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('a store that answers is not affected', async () => {
    // A generous deadline: this asserts the answer passes through, not how fast it is.
    const res = await signupWithin(30_000)(signupRequest('bob@example.com'), h.deps);
    expect(res.status).toBe(202);
  });
});

describe('every route a person waits on has the deadline', () => {
  it.each([
    'app/api/signup/route.ts',
    'app/confirm/route.ts',
    'app/preferences/route.ts',
    'app/unsubscribe/route.ts',
    'app/unsubscribe/undo/route.ts',
    'app/not-a-fit/route.ts',
    'app/admin/route.ts',
    'app/admin/login/route.ts',
    'app/admin/actions/route.ts',
    'app/admin/logout/route.ts',
  ])('%s wraps its handler in withDeadline', async (path) => {
    const source = await readFile(new URL(`../../${path}`, import.meta.url), 'utf8');
    expect(source).toMatch(/withProductionDeps\(\s*withDeadline\(/);
  });
});
