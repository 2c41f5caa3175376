import { afterEach, describe, expect, it } from 'vitest';
import { runCycle } from '../../lib/cycle/run-cycle';
import { noFailpoints } from '../../lib/runtime/failpoints';
import type { Logger } from '../../lib/runtime/logger';
import { resendLatestDigest } from '../../lib/ops/resend-digest';
import { handleSignupRequest } from '../../lib/subscriptions/handle-signup-request';
import { confirmSubscription } from '../../lib/subscriptions/confirm';
import { welcomeSettingsOf } from '../../lib/subscriptions/welcome';
import { updatePreferences } from '../../lib/subscriptions/preferences';
import { subscriberId } from '../../lib/subscribers/subscriber';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

/** 64 + 1 + 180 characters: a valid address (local part ≤ 64, labels ≤ 63, total ≤ 254), yet its uid alone is 327 characters. */
const LONG = `${'l'.repeat(64)}@${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(53)}.test`;
const NOW = new Date('2026-11-30T06:00:00Z');
let h: Harness;

afterEach(async () => h?.close());

describe('provider idempotency keys stay within 256 characters (docs/design.md §2.11)', () => {
  it('a 245-character address receives its confirmation, an alert, a digest and a manual resend; nothing dead; no log names it', async () => {
    expect(LONG).toHaveLength(245);
    const uid = subscriberId(LONG);
    const lines: { event: string; fields: Record<string, unknown> }[] = [];
    const log: Logger = (event, fields = {}) => void lines.push({ event, fields });
    h = await createHarness();
    const deps = { ...h.deps, log };

    const signup = await handleSignupRequest(
      new Request('http://localhost:3000/api/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: LONG, keywords: 'react', mode: 'instant' }),
      }),
      { ...deps, now: NOW },
    );
    expect(signup.status).toBe(202);
    const confirmRow = (await h.db.collection('emails').doc(`confirm_${uid}_1`).get()).data();
    expect(confirmRow).toMatchObject({ status: 'sent', lastError: null });
    const [confirmation] = await h.inbox(LONG);
    expect(confirmation?.subject).toBe('Confirm your Scout subscription');
    const token = new URL(confirmation.text!.match(/http:\/\/localhost:3000\/confirm\?token=[\w.-]+/)![0]).searchParams.get('token');
    expect(
      await confirmSubscription(h.db, {
        token,
        secret: h.config.LINK_SECRET,
        now: NOW,
        runId: 'confirm-test',
        welcome: welcomeSettingsOf(h.config),
      }),
    ).toMatchObject({ ok: true });

    h.serveFeed(postingsAbout('react', 2, { at: NOW }));
    const alertRun = await runCycle({ ...deps, failpoint: noFailpoints }, { now: NOW, dryRun: false, trigger: 'test' });
    expect(alertRun).toMatchObject({ instantEmails: 1, failures: 0 });

    const switched = await updatePreferences(h.db, { uid, input: { keywords: 'react', mode: 'daily' }, now: NOW, digestHourUtc: 8 });
    expect(switched.ok).toBe(true);
    h.serveFeed([...postingsAbout('react', 2, { at: NOW }), ...postingsAbout('react', 2, { at: NOW, prefix: 'later' })]);
    await runCycle({ ...deps, failpoint: noFailpoints }, { now: new Date('2026-11-30T07:00:00Z'), dryRun: false, trigger: 'test' });
    const digestRun = await runCycle(
      { ...deps, failpoint: noFailpoints },
      { now: new Date('2026-12-01T08:00:00Z'), dryRun: false, trigger: 'test' },
    );
    expect(digestRun).toMatchObject({ digests: 1, failures: 0 });

    const resent = await resendLatestDigest(deps, { email: LONG, now: new Date('2026-12-01T09:00:00Z') });
    expect(resent).toMatchObject({ kind: 'resent', result: 'sent' });

    const inbox = await h.inbox(LONG);
    expect(inbox.map((m) => m.subject)).toEqual([
      'Confirm your Scout subscription',
      expect.stringMatching(/react/i),
      expect.stringMatching(/^\d+ in your digest: /),
      expect.stringMatching(/^\d+ in your digest: /),
    ]);
    for (const message of inbox) {
      expect(message.idempotencyKey!.length).toBeLessThanOrEqual(256);
      // The key the provider keeps is a digest: it names neither the address nor its uid.
      expect(message.idempotencyKey).not.toContain(uid);
    }
    const rows = (await h.db.collection('emails').get()).docs.map((d) => [d.get('kind'), d.get('status')]);
    expect(rows.sort()).toEqual([
      ['alert', 'sent'],
      ['confirm', 'sent'],
      ['digest', 'sent'],
      ['digest', 'sent'],
    ]);

    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(LONG);
    expect(logged).not.toContain(uid);
  });
});
