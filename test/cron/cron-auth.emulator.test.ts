import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleCronRequest } from '../../lib/cron/handle-cron-request';
import { createHarness, CRON_SECRET, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

const NOW = '2026-11-30T06:00:00Z';
let h: Harness;

afterEach(async () => h.close());

async function expectNothingWritten() {
  const state = await h.dump(['jobs', 'deliveries', 'emails', 'feeds', 'locks', 'runs']);
  for (const [name, docs] of Object.entries(state)) expect(Object.keys(docs), name).toHaveLength(0);
  expect(await h.inbox()).toHaveLength(0);
  expect(h.feeds.requests()).toHaveLength(0);
}

describe('an unauthorised call does no work', () => {
  beforeEach(async () => {
    h = await createHarness();
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    h.serveFeed(postingsAbout('react', 2, { at: new Date(NOW) }));
  });

  it.each([
    ['no secret', {}],
    ['a wrong bearer secret of the same length', { authorization: `Bearer ${'x'.repeat(CRON_SECRET.length)}` }],
    ['a wrong bearer secret of another length', { authorization: 'Bearer nope' }],
    ['a bearer prefix without a secret', { authorization: 'Bearer ' }],
    ['the secret without the Bearer scheme', { authorization: CRON_SECRET }],
    ['a wrong x-cron-secret', { 'x-cron-secret': `${CRON_SECRET}-` }],
  ])('%s → 401, nothing written, no feed fetched, no secret echoed', async (_name, headers) => {
    const res = await h.cron({ now: NOW }, { headers });
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).not.toContain(CRON_SECRET);
    await expectNothingWritten();
  });

  it('?key= is refused while CRON_ALLOW_QUERY_SECRET is false', async () => {
    const res = await h.cron({ now: NOW, key: CRON_SECRET }, { headers: {} });
    expect(res.status).toBe(401);
    await expectNothingWritten();
  });

  it('the x-cron-secret header (cron-job.org, n8n) is accepted', async () => {
    const res = await h.cron({ now: NOW }, { headers: { 'x-cron-secret': CRON_SECRET } });
    expect(res.status).toBe(200);
    expect(res.body.instantEmails).toBe(1);
  });
});

describe('?key= when enabled', () => {
  it('accepts the secret in the query string only with CRON_ALLOW_QUERY_SECRET=true', async () => {
    h = await createHarness({ CRON_ALLOW_QUERY_SECRET: 'true' });
    const ok = await h.cron({ now: NOW, key: CRON_SECRET }, { headers: {} });
    expect(ok.status).toBe(200);
    const bad = await h.cron({ now: NOW, key: 'wrong' }, { headers: {} });
    expect(bad.status).toBe(401);
  });
});

describe('bad query strings', () => {
  beforeEach(async () => {
    h = await createHarness();
  });

  it.each([
    ['an invalid now', { now: 'yesterday' }, 'now'],
    ['an invalid dryRun', { dryRun: 'maybe' }, 'dryRun'],
    ['an unknown parameter', { verbose: '1' }, 'query'],
    ['a shard without shards', { shard: '0' }, 'shards'],
    ['shards without a shard', { shards: '2' }, 'shard'],
    ['a shard past the last one', { shard: '2', shards: '2' }, 'shard'],
    ['no shards at all', { shard: '0', shards: '0' }, 'shards'],
    ['more shards than allowed', { shard: '0', shards: '65' }, 'shards'],
    ['a shard that is not a number', { shard: 'one', shards: '2' }, 'shard'],
    ['a negative shard', { shard: '-1', shards: '2' }, 'shard'],
  ])('%s → 400 naming the field, nothing written', async (_name, query, field) => {
    const res = await h.cron(query);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.fields)).toContain(field);
    await expectNothingWritten();
  });

  it('?now= is refused unless ALLOW_CLOCK_OVERRIDE=true', async () => {
    const locked = await createHarness({ ALLOW_CLOCK_OVERRIDE: 'false' });
    const res = await locked.cron({ now: NOW });
    expect(res.status).toBe(400);
    expect(res.body.fields.now).toMatch(/ALLOW_CLOCK_OVERRIDE/);
    await locked.close();
  });
});

describe('?dryRun=1', () => {
  it('reports what would be sent and writes nothing', async () => {
    h = await createHarness();
    await h.subscribe({ email: 'ada@example.com', keywords: ['react'] });
    await h.subscribe({ email: 'bob@example.com', keywords: ['react'], mode: 'daily' });
    h.serveFeed(postingsAbout('react', 3, { at: new Date(NOW) }));
    const before = await h.dump();
    const res = await h.cron({ now: NOW, dryRun: '1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dryRun: true, jobsNew: 3, matches: 6, wouldSend: { alerts: 1, alertItems: 3, queued: 3 } });
    expect(await h.dump()).toEqual(before);
    expect((await h.db.collection('runs').get()).size).toBe(0);
    expect(await h.inbox()).toHaveLength(0);
  });
});

describe('a failed run answers without its internal error', () => {
  it('500 is {error, runId} only: the detail (hosts, ports) stays in the logs and in runs/{runId}', async () => {
    h = await createHarness();
    const lines: { event: string; fields: Record<string, unknown> }[] = [];
    const deps = { ...h.deps, log: (event: string, fields: Record<string, unknown> = {}) => void lines.push({ event, fields }) };
    const failpoint = async (name: string) => {
      if (name === 'after-postings-stored') throw new Error('connect ECONNREFUSED 127.0.0.1:8681');
    };
    const res = await handleCronRequest(
      new Request(`http://localhost/api/cron?now=${NOW}`, { headers: { authorization: `Bearer ${CRON_SECRET}` } }),
      { ...deps, failpoint },
    );
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['error', 'runId']);
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|8681/);
    const run = await h.db.collection('runs').doc(body.runId).get();
    expect(run.get('status')).toBe('failed');
    expect(run.get('errors')).toEqual(['Error: connect ECONNREFUSED 127.0.0.1:8681']);
    expect(lines.find((l) => l.event === 'run.error')?.fields).toMatchObject({
      runId: body.runId,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });
});
