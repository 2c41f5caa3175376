import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { parseEmailArgs } from './cli-args';
import { setSubscriberStatus, type StatusAction } from '../../lib/subscribers/set-subscriber-status';

export type UsersStatusArgs = { email: string };

const usages: Record<StatusAction, string> = {
  pause: `Usage: scout users pause <email>

Stops sending to an active subscriber (status paused) until \`scout users resume\`.

Options:
  -h, --help   show this help`,
  resume: `Usage: scout users resume <email>

Starts sending again to a paused subscriber (status active). Never revives someone who
unsubscribed or who has not confirmed their email.

Options:
  -h, --help   show this help`,
};

export const parseUsersStatusArgs = (argv: string[]): Parsed<UsersStatusArgs> => parseEmailArgs(argv);

const pastTense: Record<StatusAction, string> = { pause: 'paused', resume: 'resumed' };

async function changeStatus(ctx: CommandContext, action: StatusAction, { email }: UsersStatusArgs): Promise<number> {
  const result = await setSubscriberStatus(ctx.db, { email, action, now: ctx.now });
  switch (result.kind) {
    case 'not-found':
      ctx.out(`no subscriber with email ${email}`);
      return EXIT.problems;
    case 'unchanged':
      ctx.out(`${email} is already ${result.from}`);
      return EXIT.ok;
    case 'refused':
      ctx.out(`not ${pastTense[action]}: ${email} is ${result.from} — ${result.reason}`);
      return EXIT.problems;
    case 'change':
      ctx.out(`${pastTense[action]} ${email} (${result.from} → ${result.to})`);
      return EXIT.ok;
  }
}

export const usersPause = (ctx: CommandContext, args: UsersStatusArgs) => changeStatus(ctx, 'pause', args);
export const usersResume = (ctx: CommandContext, args: UsersStatusArgs) => changeStatus(ctx, 'resume', args);

export const usersPauseCommand = defineCommand({
  name: 'pause',
  summary: 'stop sending to a subscriber',
  usage: usages.pause,
  parse: parseUsersStatusArgs,
  run: usersPause,
});
export const usersResumeCommand = defineCommand({
  name: 'resume',
  summary: 'send again to a paused subscriber',
  usage: usages.resume,
  parse: parseUsersStatusArgs,
  run: usersResume,
});
