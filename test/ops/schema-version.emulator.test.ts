import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dashboardPage } from '../../lib/admin/dashboard-page';
import { SCHEMA_VERSION } from '../../lib/ledger/migrations/migrations';
import { readDashboard } from '../../lib/ops/read-dashboard';
import { createHarness, type Harness } from '../support/harness';
import { storeAtSchemaVersion } from '../support/schema';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const NOW = new Date('2026-11-30T09:00:00Z');
const page = async () => (await dashboardPage({ dashboard: await readDashboard(h.db, { now: NOW, digestHourUtc: 8 }) })).text();

describe('the schema version on the ops page', () => {
  it('a store behind the code: a banner says runs refuse and to run scout migrate, with both versions', async () => {
    await storeAtSchemaVersion(h.db, SCHEMA_VERSION - 2);
    const body = await page();
    expect(body).toContain('<div class="alert" role="status" id="schema-version">');
    expect(body).toContain(
      `Runs refuse: the store is at schema version ${SCHEMA_VERSION - 2} and this code needs ${SCHEMA_VERSION}: run \`scout migrate\``,
    );
  });

  it('a current store: no banner, the version in one line', async () => {
    await h.run({ now: NOW.toISOString() });
    const body = await page();
    expect(body).not.toContain('id="schema-version"');
    expect(body).toContain(`schema: version ${SCHEMA_VERSION}, as this code`);
  });
});
