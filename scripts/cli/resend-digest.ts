import { resendLatestDigest } from '../../lib/ops/resend-digest';
import { defineCommand, EXIT, type CommandContext, type Parsed } from './command';
import { parseEmailArgs } from './cli-args';

export type ResendDigestArgs = { email: string };

const usage = `Usage: scout resend-digest <email>

Sends the subscriber's latest digest again, byte for byte, under its own key
(digest_{uid}_manual-{timestamp}), so it never blocks or repeats the scheduled digest.
Only to an active subscriber on a daily or weekly digest. Needs the full configuration (it sends).

Options:
  -h, --help   show this help`;

export const parseResendDigestArgs = (argv: string[]): Parsed<ResendDigestArgs> => parseEmailArgs(argv);

export async function resendDigest(ctx: CommandContext, { email }: ResendDigestArgs): Promise<number> {
  const result = await resendLatestDigest(ctx.appDeps(), { email, now: ctx.now });
  switch (result.kind) {
    case 'not-found':
      ctx.out(`no subscriber with email ${email}`);
      return EXIT.problems;
    case 'refused':
      ctx.out(`not sent: ${email} is ${result.status} (opt-outs win)`);
      return EXIT.problems;
    case 'not-digest':
      ctx.out(`not sent: ${email} gets ${result.mode === 'feed' ? 'no email (feed only)' : 'instant alerts'}, not digests`);
      return EXIT.problems;
    case 'no-digest':
      ctx.out(`no digest was ever claimed for ${email}`);
      return EXIT.problems;
    case 'resent':
      ctx.out(
        `${
          result.result === 'sent'
            ? 'sent'
            : result.result === 'quota'
              ? 'queued (provider quota reached; the first run after it resets sends it)'
              : `queued (${result.result}; the next run finishes it)`
        } ${result.emailKey}, a copy of ${result.copyOf}`,
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
