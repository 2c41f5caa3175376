import { SCHEDULER_REQUIREMENT, ZONES_PER_HOUR, type DigestHourCoverage } from '../ops/digest-hour-coverage';
import { N, Num, Table, utc } from './ops-view';

/**
 * The ops page's "Digest hours" panel: whether every local digest hour the subscribers have was
 * served by a run in the last day (lib/ops/digest-hour-coverage.ts). When some were not, an alert
 * names them — zone, local hour, the UTC instant, how many subscribers — and says what scheduler
 * per-hour schedules need; otherwise one quiet line.
 */
export function DigestHoursPanel({ coverage: c }: { coverage: DigestHourCoverage }) {
  const checked = `${c.hoursChecked} zone/hour pair${c.hoursChecked === 1 ? '' : 's'} checked`;
  return (
    <section aria-labelledby="digest-hours-title" id="digest-hours">
      <h2 id="digest-hours-title">
        Digest hours <span className="count">· the subscribers’ local hours against the last day’s runs</span>
      </h2>
      {c.truncated ? (
        <p className="muted">
          Over {ZONES_PER_HOUR} zones share one hour: the zones past the first {ZONES_PER_HOUR} (by name) of that hour were not checked.
        </p>
      ) : null}
      {c.hoursChecked === 0 ? (
        <p className="muted">No active daily or weekly subscribers.</p>
      ) : c.unservedTotal === 0 ? (
        <p className="muted">Every subscriber’s local digest hour in the last day had a run within the hour ({checked}).</p>
      ) : (
        <>
          <div className="alert" role="status" id="digest-hours-unserved">
            <p>
              <strong>
                {c.unservedTotal} local digest hour{c.unservedTotal === 1 ? '' : 's'} in the last day had no run within the hour
              </strong>
              : those subscribers’ digests wait for the next run, up to a day late. {SCHEDULER_REQUIREMENT[0].toUpperCase()}
              {SCHEDULER_REQUIREMENT.slice(1)} (<code>DIGEST_HOUR_UTC={c.digestHourUtc}</code>). See <code>docs/operations.md</code>.
            </p>
          </div>
          <Table
            headers={['Zone', 'Local hour', 'Last missed (UTC)', N('Subscribers')]}
            rows={c.unserved.map((u, i) => (
              <tr key={i}>
                <td>{u.timezone}</td>
                <td>
                  {String(u.hour).padStart(2, '0')}:00{u.followsDefault ? <span className="sub">the default hour</span> : null}
                </td>
                <td>{utc(u.slot)}</td>
                <Num n={u.subscribers ?? '—'} />
              </tr>
            ))}
            empty=""
          />
          {c.unservedTotal > c.unserved.length ? (
            <p className="muted">
              And {c.unservedTotal - c.unserved.length} more ({checked}).
            </p>
          ) : (
            <p className="muted">{checked}.</p>
          )}
        </>
      )}
    </section>
  );
}
