import { parseArgs } from 'node:util';
import { resendLatestDigest } from '../../lib/digests/resend-digest';
import { normaliseEmail } from '../../lib/subscribers/subscriber';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { checkEmail, expectPositionals, invalid, readArgv } from './cli-args';

export type ResendDigestArgs = { email: string };

const usage = `Usage: scout resend-digest <email>

Sends the subscriber's latest digest again, byte for byte, under its own key
(digest_{uid}_manual-{timestamp}), so it never blocks or repeats the scheduled digest.
Only to an active subscriber. Needs the full configuration (it sends).

Options:
  -h, --help   show this help`;

export function parseResendDigestArgs(argv: string[]): Parsed<ResendDigestArgs> {
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

export async function resendDigest(ctx: CommandContext, { email }: ResendDigestArgs): Promise<number> {
  const result = await resendLatestDigest(ctx.cycleDeps(), { email, now: ctx.now });
  switch (result.kind) {
    case 'not-found':
      ctx.out(`no subscriber with email ${email}`);
      return EXIT.problems;
    case 'refused':
      ctx.out(`not sent: ${email} is ${result.status} (opt-outs win)`);
      return EXIT.problems;
    case 'no-digest':
      ctx.out(`no digest was ever claimed for ${email}`);
      return EXIT.problems;
    case 'resent':
      ctx.out(
        `${result.result === 'sent' ? 'sent' : `queued (${result.result}; the next run finishes it)`} ${result.emailKey}, a copy of ${result.copyOf}`,
      );
      return result.result === 'sent' ? EXIT.ok : EXIT.problems;
  }
}

export const resendDigestCommand = defineCommand({
  name: 'resend-digest',
  summary: "send a subscriber's latest digest again (its own key)",
  usage,
  parse: parseResendDigestArgs,
  run: resendDigest,
});
