import { parseArgs } from 'node:util';
import { normaliseEmail } from '../../lib/subscribers/subscriber';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { checkEmail, expectPositionals, invalid, readArgv } from './cli-args';
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

export function parseUsersStatusArgs(argv: string[]): Parsed<UsersStatusArgs> {
  const read = readArgv(() =>
    parseArgs({ args: argv, allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } }),
  );
  if (!read.ok) return invalid(read.message);
  if (read.value.values.help) return { kind: 'help' };
  const positionalError = expectPositionals(read.value.positionals, ['<email>']);
  if (positionalError) return invalid(positionalError);
  const email = read.value.positionals[0];
  const emailError = checkEmail(email);
  return emailError ? invalid(emailError) : { kind: 'args', args: { email: normaliseEmail(email) } };
}

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
