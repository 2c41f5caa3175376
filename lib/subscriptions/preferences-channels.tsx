import type { ReactNode } from 'react';
import { CHANNEL_KIND_NAMES, MAX_CHANNELS, MAX_VERIFY_TRIES, type Channel } from '../channels/channel';
import type { ChannelPageState } from './channel-answer';
import { channelTag } from './channel-writes';

/**
 * "Also send to…": the preferences page's section for channels beyond email (docs/channels.md
 * "Adding a channel"). Plain forms posting back to the same signed link, each naming its channel
 * and the state the page saw of it (`seen`), so a stale page changes nothing it did not show.
 * Works without script; React escapes every label.
 */
export type ChannelsSectionProps = {
  channels: readonly Channel[];
  /** The subscriber is on a daily or weekly schedule: a channel may get the digest. */
  digestOffered: boolean;
  telegramOffered: boolean;
  state: ChannelPageState;
  now: Date;
};

const STATUS_NAMES: Record<Channel['status'], string> = {
  verifying: 'Verifying',
  active: 'Active',
  paused: 'Paused',
  disabled: 'Disabled',
};

const day = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : 'an unknown day');

export function ChannelsSection(input: ChannelsSectionProps & { action: string }) {
  const action = `${input.action}#channels`;
  const { notice } = input.state;
  return (
    <section className="channels" id="channels" aria-labelledby="channels-title">
      <h2 id="channels-title">Also send to…</h2>
      <p className="hint">
        Get your postings in Slack, Discord, Telegram or your own webhook too, as well as by email. Each channel is verified before it gets
        anything; pause or remove it here at any time. Unsubscribing removes them all.
      </p>
      {notice ? (
        <div className={notice.tone === 'error' ? 'alert' : 'notice'} role={notice.tone === 'error' ? 'alert' : 'status'}>
          <p>{notice.text}</p>
        </div>
      ) : null}
      {input.channels.length > 0 ? (
        <ul className="channel-list">
          {input.channels.map((channel) => (
            <ChannelItem key={channel.id} {...input} channel={channel} action={action} />
          ))}
        </ul>
      ) : null}
      {input.channels.length < MAX_CHANNELS ? (
        <AddChannelForms action={action} telegramOffered={input.telegramOffered} addForm={input.state.addForm} />
      ) : (
        <p className="hint">You have {MAX_CHANNELS} channels, the most Scout keeps: remove one to add another.</p>
      )}
    </section>
  );
}

function ChannelItem(input: ChannelsSectionProps & { channel: Channel; action: string }) {
  const { channel, action, state } = input;
  const reveal = state.reveal?.channelId === channel.id ? state.reveal : undefined;
  const hidden = <ChannelFields channel={channel} />;
  return (
    <li className="channel" id={`channel-${channel.id}`}>
      <p className="channel-title">
        <strong>{CHANNEL_KIND_NAMES[channel.kind]}</strong> {channel.label} —{' '}
        <span className={`channel-status channel-${channel.status}`}>{STATUS_NAMES[channel.status]}</span>
        {channel.status === 'disabled' ? (
          <>
            {' '}
            since {day(channel.disabledAt)}: {channel.disabledReason ?? 'the destination stopped accepting messages'}. Remove it and add it
            again to start over.
          </>
        ) : null}
      </p>
      {reveal?.secret ? (
        <Revealed
          label="Signing secret"
          value={reveal.secret}
          id={`secret-${channel.id}`}
          hint="Copy it now: Scout shows it only this once. Your endpoint checks each message's webhook-signature with it."
        />
      ) : null}
      {reveal?.startLink ? <StartLink link={reveal.startLink} /> : null}
      {channel.status === 'verifying' ? <Verification channel={channel} action={action} hidden={hidden} now={input.now} /> : null}
      {channel.kind === 'webhook' ? <WebhookForms channel={channel} action={action} hidden={hidden} /> : null}
      {channel.status === 'active' || channel.status === 'paused' ? (
        <>
          <CadenceForm channel={channel} action={action} hidden={hidden} digestOffered={input.digestOffered} />
          <form method="post" action={action} className="channel-form">
            <input type="hidden" name="action" value={channel.status === 'active' ? 'channel-pause' : 'channel-resume'} />
            {hidden}
            <button type="submit" className="secondary">
              {channel.status === 'active' ? 'Pause' : 'Resume'}
            </button>
          </form>
        </>
      ) : null}
      <RemoveForm channel={channel} action={action} hidden={hidden} confirming={state.confirmRemove === channel.id} />
    </li>
  );
}

/** Which channel a form acts on, and the state the page saw of it. */
const ChannelFields = ({ channel }: { channel: Channel }) => (
  <>
    <input type="hidden" name="channel" value={channel.id} />
    <input type="hidden" name="seen" value={channelTag(channel)} />
  </>
);

type FormProps = { channel: Channel; action: string; hidden: ReactNode };

function Verification({ channel, action, hidden, now }: FormProps & { now: Date }) {
  if (channel.kind === 'telegram')
    return (
      <form method="post" action={action} className="channel-form">
        <input type="hidden" name="action" value="channel-new-link" />
        {hidden}
        <p>Waiting for you to press Start in Telegram. Lost the link, or more than an hour passed?</p>
        <button type="submit" className="secondary">
          New link
        </button>
      </form>
    );
  if (channel.kind === 'webhook') return <p>Not verified yet: Scout sends it nothing until your endpoint answers a test event with 2xx.</p>;
  const spent = channel.verifyTries >= MAX_VERIFY_TRIES || !channel.verifyExpiresAt || channel.verifyExpiresAt.getTime() <= now.getTime();
  const codeId = `code-${channel.id}`;
  return (
    <>
      {spent ? (
        <p>This code no longer works: ask for a new one.</p>
      ) : (
        <form method="post" action={action} className="channel-form">
          <input type="hidden" name="action" value="channel-verify" />
          {hidden}
          <label htmlFor={codeId}>The 6-digit code Scout posted to {CHANNEL_KIND_NAMES[channel.kind]}</label>
          <input
            id={codeId}
            name="code"
            type="text"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9 ]{6,7}"
            maxLength={7}
            required
          />
          <button type="submit">Verify</button>
        </form>
      )}
      <form method="post" action={action} className="channel-form">
        <input type="hidden" name="action" value="channel-new-code" />
        {hidden}
        <button type="submit" className="secondary">
          Send a new code
        </button>
      </form>
    </>
  );
}

function WebhookForms({ channel, action, hidden }: FormProps) {
  return (
    <>
      <p className="hint">Signing secret: set (shown only when it was made). Rotate it if it leaked: the old one stops at once.</p>
      <form method="post" action={action} className="channel-form">
        <input type="hidden" name="action" value="channel-test" />
        {hidden}
        <button type="submit" className={channel.status === 'verifying' ? undefined : 'secondary'}>
          Send test event
        </button>
      </form>
      <form method="post" action={action} className="channel-form">
        <input type="hidden" name="action" value="channel-rotate-secret" />
        {hidden}
        <button type="submit" className="secondary">
          Rotate secret
        </button>
      </form>
    </>
  );
}

function CadenceForm({ channel, action, hidden, digestOffered }: FormProps & { digestOffered: boolean }) {
  return (
    <form method="post" action={action} className="channel-form">
      <input type="hidden" name="action" value="channel-cadence" />
      {hidden}
      <fieldset>
        <legend>What it gets</legend>
        <label>
          <input type="checkbox" name="instant" defaultChecked={channel.instant} /> Instant alerts
        </label>
        <label>
          <input type="checkbox" name="digest" defaultChecked={channel.digest && digestOffered} disabled={!digestOffered} /> A copy of each
          digest
        </label>
        {digestOffered ? null : <p className="hint">Digests come with a daily or weekly schedule: choose one above to offer it here.</p>}
      </fieldset>
      <button type="submit" className="secondary">
        Save
      </button>
    </form>
  );
}

function RemoveForm({ channel, action, hidden, confirming }: FormProps & { confirming: boolean }) {
  if (!confirming)
    return (
      <form method="post" action={action} className="channel-form">
        <input type="hidden" name="action" value="channel-remove" />
        {hidden}
        <button type="submit" className="secondary">
          Remove
        </button>
      </form>
    );
  return (
    <form method="post" action={action} className="channel-form channel-confirm" role="alert">
      <input type="hidden" name="action" value="channel-remove" />
      <input type="hidden" name="confirm" value="yes" />
      {hidden}
      <p>
        Remove {CHANNEL_KIND_NAMES[channel.kind]} {channel.label}? It gets nothing more from Scout; to use it again you add and verify it
        again.
      </p>
      <button type="submit">Yes, remove it</button> <a href={action}>Keep it</a>
    </form>
  );
}

function Revealed({ label, value, id, hint }: { label: string; value: string; id: string; hint: string }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <input type="text" id={id} readOnly value={value} aria-describedby={`${id}-hint`} />
    </div>
  );
}

function StartLink({ link }: { link: string }) {
  return (
    <p className="channel-start">
      <a href={link} rel="noopener noreferrer">
        Open Scout’s bot in Telegram
      </a>{' '}
      and press Start. The link works once, for an hour: <code>{link}</code>
    </p>
  );
}

function AddChannelForms({
  action,
  telegramOffered,
  addForm,
}: {
  action: string;
  telegramOffered: boolean;
  addForm: ChannelPageState['addForm'];
}) {
  const error = addForm?.error;
  const kind = addForm && addForm.kind !== 'telegram' ? addForm.kind : 'slack';
  return (
    <>
      <form method="post" action={action} className="channel-add">
        <input type="hidden" name="action" value="channel-add" />
        <div className="field">
          <label htmlFor="channel-kind">Add a channel</label>
          <select id="channel-kind" name="kind" defaultValue={kind}>
            <option value="slack">Slack (incoming webhook)</option>
            <option value="discord">Discord (webhook)</option>
            <option value="webhook">Webhook (signed JSON to your endpoint)</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="channel-url">Webhook URL</label>
          <p className="hint" id="channel-url-hint">
            Slack: https://hooks.slack.com/services/… · Discord: https://discord.com/api/webhooks/… · Webhook: any https URL of yours.
          </p>
          {error ? (
            <p className="field-error" id="channel-url-error">
              <span className="visually-hidden">Error: </span>
              {error}
            </p>
          ) : null}
          <input
            type="url"
            id="channel-url"
            name="url"
            defaultValue={addForm?.url ?? ''}
            autoComplete="off"
            aria-describedby={error ? 'channel-url-hint channel-url-error' : 'channel-url-hint'}
            aria-invalid={error ? true : undefined}
          />
        </div>
        <button type="submit">Add channel</button>
      </form>
      {telegramOffered ? (
        <form method="post" action={action} className="channel-add">
          <input type="hidden" name="action" value="channel-add" />
          <input type="hidden" name="kind" value="telegram" />
          <button type="submit" className="secondary">
            Connect Telegram
          </button>
        </form>
      ) : null}
    </>
  );
}
