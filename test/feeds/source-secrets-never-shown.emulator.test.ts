import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleCronRequest } from '../../lib/cron/handle-cron-request';
import { parseSourceList, SourceListError } from '../../lib/feeds/source-list';
import { runCli } from '../../scripts/cli/run-cli';
import { LOCAL_UPWORK_CREDENTIALS, upworkSampleKind } from '../../scripts/sample-feed/kinds/upwork';
import { adminClient } from '../admin/admin-fixture';
import { createHarness, type Harness } from '../support/harness';

/**
 * SOURCES holds secrets since Upwork's credentials moved into the upwork entry's params. Every
 * place a source is shown — the run's answer and stats, the log, the feeds/ and sourceTokens/
 * documents, the ops page, `scout status`, a refused entry's error — must show none of them, on
 * the way that works and on the way that fails (a client secret Upwork refuses).
 */
const NOW = '2026-11-30T06:00:00Z';
const WRONG_SECRET = 'hunter2-wrong-client-secret';
const SECRETS = [...Object.values(LOCAL_UPWORK_CREDENTIALS), WRONG_SECRET];

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const expectNoSecret = (what: string, text: string) => {
  for (const secret of SECRETS) expect(text, `${what} shows a secret`).not.toContain(secret);
};

describe("an upwork source's credentials are never shown", () => {
  it('not in the run, its log, its records, the ops page or `scout status`, when the token works and when it is refused', async () => {
    const working = upworkSampleKind.entry(h.feeds.url);
    const refused = { ...working, id: 'upwork-refused', params: { ...working.params, clientSecret: WRONG_SECRET } };
    const config = { ...h.config, SOURCES: JSON.stringify([working, refused]) };
    const logs: string[] = [];
    const deps = {
      ...h.deps,
      config,
      log: (event: string, fields?: Record<string, unknown>) => void logs.push(JSON.stringify({ event, ...fields })),
    };

    const response = await handleCronRequest(
      new Request(`http://localhost/api/cron?now=${NOW}`, { headers: { authorization: `Bearer ${h.config.CRON_SECRET}` } }),
      deps,
    );
    const body = await response.json();
    expect(body.feeds).toContainEqual(expect.objectContaining({ source: 'upwork-sample', status: 'ok' }));
    expect(body.feeds).toContainEqual(expect.objectContaining({ source: 'upwork-refused', status: 'error' }));
    expectNoSecret('the run answer', JSON.stringify(body));
    expect(logs.length).toBeGreaterThan(0);
    expectNoSecret('the log', logs.join('\n'));
    expectNoSecret('the stored records', JSON.stringify(await h.dump(['feeds', 'runs', 'sourceTokens'])));

    const ops = adminClient({ ...h, config, deps: { ...h.deps, config } }, new Date(NOW));
    const page = await ops.get({ cookie: await ops.session() });
    expect(page.status).toBe(200);
    expect(page.body).toContain('upwork-refused');
    expectNoSecret('the ops page', page.body);
    expectNoSecret('the ops log', ops.logs.join('\n'));

    const out: string[] = [];
    const code = await runCli(['status'], {
      out: (line) => out.push(line),
      err: (line) => out.push(line),
      openDb: () => h.db,
      digestHourUtc: () => 8,
      appDeps: () => deps,
      now: () => new Date(NOW),
    });
    expect(out.join('\n')).toContain('upwork-refused');
    expect(code).toBeGreaterThanOrEqual(0);
    expectNoSecret('scout status', out.join('\n'));
  });

  it('not in the parsed sources, however they are printed, nor in a refused entry’s error', () => {
    const entry = upworkSampleKind.entry('http://127.0.0.1:3030');
    const sources = parseSourceList({ SOURCES: JSON.stringify([entry]) });
    expectNoSecret('JSON', JSON.stringify(sources));
    expectNoSecret('inspect', inspect(sources, { depth: null, showHidden: true }));
    expectNoSecret('a template', `${sources[0].params.clientSecret as string}`);

    const bad = { ...entry, params: { ...entry.params, clientId: `${WRONG_SECRET} with spaces`, extra: WRONG_SECRET } };
    const error = (() => {
      try {
        parseSourceList({ SOURCES: JSON.stringify([bad]) });
      } catch (e) {
        return e as SourceListError;
      }
    })();
    expect(error).toBeInstanceOf(SourceListError);
    expect(error!.problems.length).toBeGreaterThan(0);
    expectNoSecret('the error', `${error!.message}\n${error!.problems.join('\n')}`);
  });
});
