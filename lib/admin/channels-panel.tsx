import { CHANNEL_KIND_NAMES, CHANNEL_KINDS, CHANNEL_STATUSES } from '../channels/channel';
import { DISABLED_LOOKBACK, type ChannelsView, type RecentChannelRuns } from '../ops/channel-status';
import { spanInWords } from '../ops/source-health-view';
import { N, Num, Pill, Table, Tile, When, utc } from './ops-view';

/**
 * The ops page's "Channels" panel (docs/operations.md "Channels"): per kind, the subscribers with a
 * channel verifying, active, paused or disabled, and the messages the listed runs sent and failed;
 * the messages waiting; and the channels recently disabled because their destination answered
 * "gone" — kind, whose (masked), when and why. Never a destination: a webhook URL is a secret.
 */
export function ChannelsPanel({ now, channels: c }: { now: Date; channels: ChannelsView }) {
  return (
    <section aria-labelledby="channels-title" id="channels">
      <h2 id="channels-title">
        Channels <span className="count">· Slack, Discord, Telegram and webhooks: by state, and {runsCovered(now, c.recent)}</span>
      </h2>
      <Table
        headers={['Kind', ...CHANNEL_STATUSES.map((status) => N(capitalised(status))), N('Sent'), N('Failed')]}
        rows={CHANNEL_KINDS.map((kind) => (
          <tr key={kind} id={`channels-${kind}`}>
            <th scope="row">{CHANNEL_KIND_NAMES[kind]}</th>
            {CHANNEL_STATUSES.map((status) => (
              <Num key={status} n={c.subscribers[kind][status]} />
            ))}
            <Num n={c.recent.byChannel[kind].sent} />
            <Num n={c.recent.byChannel[kind].failed} />
          </tr>
        ))}
        empty=""
      />
      <p className="muted">
        A state counts the subscribers with one or more channels of that kind in it: two Slack channels of one subscriber, both active,
        count once. Sent and failed are the listed runs’ messages ({c.recent.runsWithChannels} of the {c.recent.runs} had a messages step);
        failed includes dead.
      </p>
      <div className="tiles">
        <Tile n={c.waiting.pending} label="channel messages pending" />
        <Tile n={c.waiting.sending} label="channel messages sending" />
        <Tile n={c.recent.skipped} label="channel messages skipped in recent runs (an opt-out)" />
        <Tile n={c.recent.retried} label="channel messages left to retry in recent runs" />
        <Tile n={c.recent.disabled} label="channels disabled as gone in recent runs" bad />
      </div>
      <h3>
        Recently disabled{' '}
        <span className="count">· destinations that answered gone, among the newest {DISABLED_LOOKBACK} failed messages</span>
      </h3>
      <Table
        headers={['Disabled', 'Kind', 'Subscriber', 'Why', 'Now']}
        rows={c.disabled.map((d, i) => (
          <tr key={i}>
            <When now={now} at={d.disabledAt} />
            <td>{CHANNEL_KIND_NAMES[d.kind]}</td>
            <td>{d.subscriber}</td>
            <td className="err">{d.reason}</td>
            <td>
              <Pill word={d.now} />
            </td>
          </tr>
        ))}
        empty="No channel disabled as gone among the newest failed messages."
      />
    </section>
  );
}

const capitalised = (word: string) => `${word[0].toUpperCase()}${word.slice(1)}`;

/** `the last 12 runs (since 2026-11-30 06:00:00 UTC, 3 hours)`: what the sent and failed columns cover. */
function runsCovered(now: Date, r: RecentChannelRuns): string {
  if (r.runs === 0) return 'no runs yet';
  const span = r.since ? ` (since ${utc(r.since)} UTC, ${spanInWords(Math.max(0, now.getTime() - r.since.getTime()))})` : '';
  return `messages of the last ${r.runs === 1 ? 'run' : `${r.runs} runs`}${span}`;
}
