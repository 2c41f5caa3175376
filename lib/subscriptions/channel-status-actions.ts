import { CHANNEL_KIND_NAMES, type Channel } from '../channels/channel';
import type { Subscriber } from '../subscribers/subscriber';
import {
  errorNotice as problem,
  failedAnswer,
  okNotice as ok,
  type ChannelAction,
  type ChannelActionDeps,
  type ChannelAnswer,
  type ChannelPageState,
} from './channel-answer';
import { deleteChannelLinks } from './channel-links';
import { checkVerifyCode, type CodeCheck } from './channel-verification';
import { findChannel, isFailure, removeChannel, setChannelCadence, setChannelPaused } from './channel-writes';

type Input = { uid: string; current: Subscriber; action: ChannelAction; fields: URLSearchParams; channelId: string; seen: string | null };

const nameOf = (channel: Channel) => `${CHANNEL_KIND_NAMES[channel.kind]} ${channel.label}`.trim();

/** The code typed back, pause and resume, cadence, and removal (with its confirmation step). */
export async function channelStatusAction(deps: ChannelActionDeps, input: Input): Promise<ChannelAnswer> {
  const where = { uid: input.uid, now: deps.now, channelId: input.channelId, seen: input.seen };
  switch (input.action) {
    case 'channel-verify': {
      const result = await checkVerifyCode(deps.db, { ...where, code: input.fields.get('code') ?? '' });
      if (!result.ok) return failedAnswer(deps.db, input.uid, result);
      const [status, notice] = codeNotice(result.value);
      return { kind: 'page', status, subscriber: result.subscriber, state: { notice } };
    }
    case 'channel-pause':
    case 'channel-resume': {
      const paused = input.action === 'channel-pause';
      const result = await setChannelPaused(deps.db, { ...where, paused });
      if (!result.ok) return failedAnswer(deps.db, input.uid, result);
      const text = paused
        ? `Paused: ${nameOf(result.value)} gets nothing until you resume it.`
        : `Resumed: ${nameOf(result.value)} gets your postings again.`;
      return { kind: 'page', status: 200, subscriber: result.subscriber, state: { notice: ok(text) } };
    }
    case 'channel-cadence': {
      const cadence = { instant: input.fields.get('instant') === 'on', digest: input.fields.get('digest') === 'on' };
      const result = await setChannelCadence(deps.db, { ...where, ...cadence });
      if (!result.ok) return failedAnswer(deps.db, input.uid, result);
      return {
        kind: 'page',
        status: 200,
        subscriber: result.subscriber,
        state: { notice: ok(`Saved what ${nameOf(result.value)} gets.`) },
      };
    }
    default:
      return remove(deps, input, where);
  }
}

/** The first press asks (no script: the answer is the page with a confirmation form); `confirm=yes` removes. */
async function remove(
  deps: ChannelActionDeps,
  input: Input,
  where: { uid: string; now: Date; channelId: string; seen: string | null },
): Promise<ChannelAnswer> {
  if (input.fields.get('confirm') !== 'yes') {
    const found = findChannel(input.current.channels ?? [], input.channelId, input.seen);
    if (isFailure(found)) return failedAnswer(deps.db, input.uid, found);
    return { kind: 'page', status: 200, subscriber: input.current, state: { confirmRemove: found.id } };
  }
  const result = await removeChannel(deps.db, { ...where, alongside: (channel, batch) => deleteChannelLinks(batch, deps.db, channel) });
  if (!result.ok) return failedAnswer(deps.db, input.uid, result);
  return {
    kind: 'page',
    status: 200,
    subscriber: result.subscriber,
    state: { notice: ok(`Removed: ${nameOf(result.value)} gets nothing more from Scout.`) },
  };
}

function codeNotice(check: CodeCheck): [number, NonNullable<ChannelPageState['notice']>] {
  switch (check.outcome) {
    case 'verified':
      return [200, ok('Verified: this channel gets your postings from now on.')];
    case 'already':
      return [200, ok('This channel is already verified.')];
    case 'wrong':
      return [400, problem(`That is not the code Scout sent. ${check.triesLeft === 1 ? 'One try' : `${check.triesLeft} tries`} left.`)];
    case 'locked':
      return [400, problem('Too many wrong codes: press “Send a new code” and type the new one.')];
    case 'expired':
      return [400, problem('That code has expired: press “Send a new code” and type the new one.')];
  }
}
