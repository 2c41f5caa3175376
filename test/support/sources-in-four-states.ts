import type { Firestore } from 'firebase-admin/firestore';
import { recordFeedFailure, recordFeedSuccess } from '../../lib/feeds/feed-state';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Four sources with the histories that put them in the four health states at `now`, recorded
 * through the same calls the runner makes (one outcome at a time, each at its own instant):
 * - `remote-jobs` ok: a new posting every day for two weeks, the last an hour ago;
 * - `jobs-feed` failing: daily postings, then two 503s in the last half hour;
 * - `acme` disabled: a Greenhouse board that answered 404 three runs in a row two days ago;
 * - `quiet-board` silent: daily postings, then nothing new for 9 days though it still answers.
 */
export async function recordSourcesInFourStates(db: Firestore, now: Date): Promise<void> {
  const t = (ms: number) => new Date(now.getTime() - ms);
  const feed = (source: string) => ({
    source,
    kind: 'feed',
    label: `${source}.example.com`,
    url: `https://${source}.example.com/jobs.xml`,
  });
  /** Read first `days` days before `lastMsAgo` (its backlog), then a new posting or three every day up to `lastMsAgo`. */
  const daily = async (described: ReturnType<typeof feed>, days: number, lastMsAgo: number) => {
    await recordFeedSuccess(db, { ...described, now: t(lastMsAgo + days * DAY), postings: 30, created: 30 });
    for (let k = days - 1; k >= 0; k--)
      await recordFeedSuccess(db, { ...described, now: t(lastMsAgo + k * DAY), postings: 30, created: k % 3 === 0 ? 3 : 2 });
  };

  await daily(feed('remote-jobs'), 14, HOUR);

  const failing = feed('jobs-feed');
  await daily(failing, 10, DAY);
  for (const ago of [30 * 60_000, 15 * 60_000])
    await recordFeedFailure(db, { ...failing, now: t(ago), error: 'HTTP 503', failure: 'transient', status: 503 });

  const acme = {
    source: 'acme',
    kind: 'greenhouse',
    label: 'Greenhouse · acme',
    url: 'https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true',
  };
  await daily(acme, 12, 3 * DAY);
  for (const ago of [2 * DAY + 30 * 60_000, 2 * DAY + 15 * 60_000, 2 * DAY])
    await recordFeedFailure(db, { ...acme, now: t(ago), error: 'HTTP 404', failure: 'gone', status: 404 });
  // Its first daily probe found it still gone.
  await recordFeedFailure(db, { ...acme, now: t(DAY - 15 * 60_000), error: 'HTTP 404', failure: 'gone', status: 404 });

  const quiet = feed('quiet-board');
  await daily(quiet, 20, 9 * DAY);
  await recordFeedSuccess(db, { ...quiet, now: t(15 * 60_000), postings: null });
}
