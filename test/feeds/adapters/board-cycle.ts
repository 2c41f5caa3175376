import { handleCronRequest } from '../../../lib/cron/handle-cron-request';
import type { SourceEntry } from '../../../scripts/sample-feed/kinds/sample-kind';
import type { Harness } from '../../support/harness';

/** The day the sample kinds serve (scripts/sample-feed/kinds/board-sample-day.ts), an hour after its newest job. */
export const SAMPLE_RUN = '2026-11-30T06:00:00Z';

/**
 * One real GET /api/cron with SOURCES naming `entries` (read from the harness's sample server,
 * beside its own FEED_URLS), as a scheduler would call it.
 */
export async function cronWithSources(h: Harness, entries: SourceEntry[], now = SAMPLE_RUN): Promise<{ status: number; body: any }> {
  const config = { ...h.config, SOURCES: JSON.stringify(entries) };
  const response = await handleCronRequest(
    new Request(`http://localhost/api/cron?now=${encodeURIComponent(now)}`, {
      headers: { authorization: `Bearer ${h.config.CRON_SECRET}` },
    }),
    { ...h.deps, config },
  );
  return { status: response.status, body: await response.json() };
}
