import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resendDigest } from '../../scripts/cli/resend-digest';
import { createHarness, type Harness } from '../support/harness';
import { postingsAbout } from '../../scripts/sample-feed/rss-feed';

let h: Harness;
const DANA = 'dana@example.com';

beforeEach(async () => {
  h = await createHarness();
  await h.subscribe({ email: DANA, keywords: ['python'], mode: 'daily' });
  h.serveFeed(postingsAbout('python', 2, { at: new Date('2026-11-30T06:00:00Z') }));
});
afterEach(async () => h.close());

const run = async (email: string, now: string) => {
  const lines: string[] = [];
  const code = await resendDigest(
    { db: h.db, now: new Date(now), digestHourUtc: h.config.DIGEST_HOUR_UTC, out: (l) => void lines.push(l), appDeps: () => h.deps },
    { email },
  );
  return { code, lines };
};

describe('scout resend-digest', () => {
  it('sends the latest digest again byte for byte under a manual key; tomorrow’s digest is neither blocked nor repeated', async () => {
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    await h.cron({ now: '2026-11-30T08:05:00Z' });
    const resent = await run(DANA, '2026-11-30T10:00:00Z');
    expect(resent.code).toBe(0);
    expect(resent.lines[0]).toMatch(/^sent digest_\S+_manual-\d+, a copy of digest_\S+_2026-11-30$/);
    const inbox = await h.inbox(DANA);
    expect(inbox).toHaveLength(2);
    expect(inbox[1].html).toBe(inbox[0].html);
    expect(inbox[1].subject).toBe(inbox[0].subject);

    // The next day's digest claims its own key as usual.
    h.serveFeed(postingsAbout('python', 1, { at: new Date('2026-12-01T06:00:00Z'), prefix: 'next' }));
    await h.cron({ now: '2026-12-01T06:00:00Z' });
    expect((await h.cron({ now: '2026-12-01T08:05:00Z' })).body.digests).toBe(1);
    expect(await h.inbox(DANA)).toHaveLength(3);
  });

  it('opt-outs win, and someone without a digest or unknown gets a clear answer (exit 1)', async () => {
    expect(await run(DANA, '2026-11-30T10:00:00Z')).toEqual({ code: 1, lines: [`no digest was ever claimed for ${DANA}`] });
    expect(await run('nobody@example.com', '2026-11-30T10:00:00Z')).toEqual({
      code: 1,
      lines: ['no subscriber with email nobody@example.com'],
    });
    const user = (await h.db.collection('users').get()).docs[0];
    await user.ref.update({ status: 'paused' });
    expect(await run(DANA, '2026-11-30T10:00:00Z')).toEqual({ code: 1, lines: [`not sent: ${DANA} is paused (opt-outs win)`] });
    expect(await h.inbox(DANA)).toHaveLength(0);
  });

  it('someone who switched to instant alerts gets no old digest again: their alerts have sent those postings since', async () => {
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    await h.cron({ now: '2026-11-30T08:05:00Z' });
    await (await h.db.collection('users').get()).docs[0].ref.update({ mode: 'instant' });
    expect(await run(DANA, '2026-11-30T10:00:00Z')).toEqual({ code: 1, lines: [`not sent: ${DANA} gets instant alerts, not digests`] });
    expect(await h.inbox(DANA)).toHaveLength(1);
  });

  it('over the provider quota: queued, pending and untried, and sent by the first run after the quota (exit 1 meanwhile)', async () => {
    await h.cron({ now: '2026-11-30T06:00:00Z' });
    await h.cron({ now: '2026-11-30T08:05:00Z' });
    await h.setFaults({ quotaExceeded: 'daily' });
    const held = await run(DANA, '2026-11-30T10:00:00Z');
    expect(held.code).toBe(1);
    expect(held.lines[0]).toMatch(
      /^queued \(provider quota reached; the first run after it resets sends it\) digest_\S+_manual-\d+, a copy of digest_\S+_2026-11-30$/,
    );
    const manual = (await h.db.collection('emails').get()).docs.find((d) => d.id.includes('_manual-'))!;
    expect(manual.data()).toMatchObject({ status: 'pending', attempts: 0 });

    await h.setFaults({});
    await h.cron({ now: '2026-12-01T00:15:00Z' });
    expect(await h.inbox(DANA)).toHaveLength(2);
  });
});
