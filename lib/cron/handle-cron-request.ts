import type { AppDeps } from '../wiring/app-deps';
import { runCycle } from '../cycle/run-cycle';
import { newRunId } from '../ledger/runs';
import { clientAddressOf } from '../http/client-address';
import { recordAuthFailure } from '../ops/auth-failures';
import { isAuthorizedCron } from './authorize-cron';
import { detectTrigger, parseCronQuery } from './cron-query';

const json = (status: number, body: unknown) => Response.json(body, { status, headers: { 'cache-control': 'no-store' } });

/** GET /api/cron: auth → parse → runCycle → JSON. Nothing runs before the secret checks out. */
export async function handleCronRequest(request: Request, deps: AppDeps): Promise<Response> {
  const { config } = deps;
  if (!isAuthorizedCron(request, { secret: config.CRON_SECRET, allowQuerySecret: config.CRON_ALLOW_QUERY_SECRET })) {
    // Logged and counted by a hash of the trusted client address; never what was offered.
    const clientAddress = clientAddressOf(request, config);
    await recordAuthFailure(deps, { kind: 'cron', event: 'cron.unauthorized', clientAddress, now: new Date(deps.wallClock()) });
    return json(401, { error: 'unauthorized' });
  }
  const parsed = parseCronQuery(request.url);
  if (!parsed.ok) return json(400, { error: 'invalid query', fields: parsed.errors });
  if (parsed.query.now && !config.ALLOW_CLOCK_OVERRIDE) {
    return json(400, { error: 'invalid query', fields: { now: 'the clock override is disabled (ALLOW_CLOCK_OVERRIDE=false)' } });
  }
  // Named here so a failed run can be pointed at without echoing its error: schedulers print
  // response bodies into logs that may be public (GitHub Actions on a public repository).
  const runId = newRunId(parsed.query.now ?? new Date(deps.wallClock()));
  try {
    const result = await runCycle(deps, {
      now: parsed.query.now,
      dryRun: parsed.query.dryRun ?? false,
      trigger: detectTrigger(request),
      shard: parsed.query.shard,
      runId,
    });
    const { kind: _kind, ...body } = result;
    return json(200, body);
  } catch (error) {
    deps.log('run.error', { runId, error: error instanceof Error ? error.message : String(error) });
    return json(500, { error: 'run failed; see runs/{runId} and the logs', runId });
  }
}
