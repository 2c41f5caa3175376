/**
 * npm run demo — the whole story in one terminal, on the embedded default:
 * starts the emulator, the mail sink, the sample feed and the channel stand-in, runs the real app
 * (`next dev`), adds the demo subscribers (one instant subscriber also connects Slack and Telegram
 * on the preferences page), calls GET /api/cron like a scheduler would, and shows what each
 * subscriber received by email and on each channel; then calls it again and shows that the second
 * run sent nothing anywhere. A newcomer then signs up and confirms, and gets the week's best matches
 * at once, as the welcome email.
 *
 *   npm run demo            run the story and stop everything
 *   npm run demo -- --keep  leave the stack running afterwards to browse the inbox page
 *   npm run demo -- --ai    the same story with the AI verdict stage on: the model fake joins the
 *                           stack, the subscribers describe what they want (demo-subscribers-ai.csv),
 *                           and each one's verdicts (fit, reason, model) are shown from matches/
 */
import { readFile } from 'node:fs/promises';
import type { Firestore } from 'firebase-admin/firestore';
import type { RunAnswer } from '../lib/ledger/runs';
import { DEFAULT_TELEGRAM_BOT, type ChannelStandIn, type ReceivedRequest } from './channel-stand-in/server';
import { channelMessageLines, connectDemoChannels } from './demo/channels';
import { clearEmulatorProject } from './stack/firestore-emulator';
import { DEFAULT_PORTS, localEnv } from './stack/local-env';
import { startNextServer } from './stack/next-server';
import { startLocalStack } from './stack/start-stack';

const keep = process.argv.includes('--keep');
const ai = process.argv.includes('--ai');
// The sample feed's postings are from 30 Nov 2026; the demo replays that day with ?now=.
const EARLY = '2026-11-30T06:00:00Z';
const DIGEST_TIME = '2026-11-30T08:05:00Z';
// A newcomer signs up and confirms after the morning's postings are stored: the welcome email carries them.
const SIGNUP_TIME = '2026-11-30T06:30:00Z';
const NEWCOMER = { email: 'sam.okafor@example.com', keywords: 'react, typescript', mode: 'daily' };

const ports = {
  ...DEFAULT_PORTS,
  firestore: 8089,
  mailSink: 3125,
  feed: 3130,
  app: 3100,
  channelStandIn: 3150,
  ...(ai ? { modelFake: 3140 } : {}),
};
// The same four subscribers; with --ai each also says, in `about`, what they want: the model's main input.
const csv = ai ? 'demo-subscribers-ai.csv' : 'demo-subscribers.csv';
// Telegram is offered only with a bot: the stand-in's, whose Bot API localEnv already points at.
const env = localEnv(ports, { TELEGRAM_BOT_TOKEN: DEFAULT_TELEGRAM_BOT.token, TELEGRAM_BOT_USERNAME: DEFAULT_TELEGRAM_BOT.username });
Object.assign(process.env, { FIRESTORE_EMULATOR_HOST: env.FIRESTORE_EMULATOR_HOST, METADATA_SERVER_DETECTION: 'none' });

const heading = (text: string) => console.log(`\n\x1b[1m${text}\x1b[0m`);

async function main() {
  heading('Starting the local stack');
  // The sample kinds date their postings by the sample server's clock: the replayed morning, not today.
  const stack = await startLocalStack(ports, console.log, () => new Date(EARLY));
  await clearEmulatorProject(stack.firestoreHost, env.FIREBASE_PROJECT_ID);
  console.log(`• Scout (next dev) on http://127.0.0.1:${ports.app} — compiling, this takes a moment…`);
  const app = await startNextServer({ mode: 'dev', port: ports.app, env, quiet: true });
  try {
    heading(`Adding the demo subscribers (scripts/demo/${csv})`);
    const { createFirestore } = await import('../lib/store/firestore');
    const { parseSubscribersCsv } = await import('../lib/subscribers/import-csv');
    const { addActiveSubscriber } = await import('../lib/subscribers/add-subscriber');
    const db = createFirestore({ projectId: env.FIREBASE_PROJECT_ID });
    const rows = parseSubscribersCsv(await readFile(new URL(`./demo/${csv}`, import.meta.url), 'utf8'));
    const uids = new Map<string, string>();
    for (const row of rows) {
      if (!row.input) throw new Error(`demo CSV line ${row.line}: ${row.error}`);
      uids.set(row.input.email, (await addActiveSubscriber(db, row.input, new Date(EARLY))).id);
      console.log(
        `  ${row.input.mode === 'daily' ? 'daily  ' : 'instant'}  ${row.input.email.padEnd(26)} ${row.input.query?.trim() || (row.input.keywords ?? []).join(', ')}`,
      );
      if (typeof row.input.about === 'string' && row.input.about) console.log(`           about: ${row.input.about}`);
    }

    // The first instant subscriber also gets each alert in Slack and Telegram (the stand-in plays both).
    const standIn = stack.channelStandIn!;
    const withChannels = rows.find((row) => row.input?.mode === 'instant')!.input!.email;
    heading(`${withChannels} adds Slack and Telegram on the preferences page (the channel stand-in plays both)`);
    await connectDemoChannels({ appUrl: app.url, env, standIn, uid: uids.get(withChannels)!, log: console.log });
    const setupSeq = Math.max(0, ...standIn.received().map((r) => r.seq));

    const cron = async (now: string) => {
      const res = await fetch(`${app.url}/api/cron?now=${encodeURIComponent(now)}`, {
        headers: { authorization: `Bearer ${env.CRON_SECRET}` },
      });
      const body: unknown = await res.json();
      if (res.status !== 200) throw new Error(`GET /api/cron → ${res.status} ${JSON.stringify(body)}`);
      return body as RunAnswer;
    };
    const summary = (b: RunAnswer) =>
      `new postings ${b.jobsNew}, matches ${b.matches}, instant emails ${b.instantEmails}, queued for digest ${b.queued}, digests ${b.digests}, channel messages ${b.channels?.sent ?? 0}, failures ${b.failures}`;
    const received = (label: string) => {
      heading(label);
      const messages = stack.mailSink.messages();
      for (const row of rows) {
        const mine = messages.filter((m) => m.to.includes(row.input!.email));
        console.log(`  ${row.input!.email}: ${mine.length} email${mine.length === 1 ? '' : 's'}`);
        for (const m of mine) {
          console.log(`    ✉ ${m.subject}`);
          // What the subscriber reads under each item: why it is there (keywords and where), and the model's reason.
          for (const line of (m.text ?? '').split('\n').filter((l) => /^\s+(Why: |AI fit \d)/.test(l))) console.log(`      ${line.trim()}`);
        }
      }
      return messages.length;
    };

    heading(`Run 1 — GET /api/cron at ${EARLY}`);
    console.log(`  ${summary(await cron(EARLY))}`);
    heading('What run 1 read, by source (the sample source server serves every kind)');
    const { sourceLines } = await import('./demo/sources-table');
    for (const line of await sourceLines(db, env)) console.log(line);
    const afterFirst = received('Inboxes after run 1 (instant subscribers got one alert each; daily ones wait for 08:00)');
    const channelsAfterFirst = channelsReceived(standIn, setupSeq, `Channels after run 1 (${withChannels}'s alert, in Slack and Telegram)`);

    const modelRequests = () => (stack.modelFake ? stack.modelFake.requests(env.AI_API_KEY).length : 0);
    const requestsAfterFirst = modelRequests();

    heading(`Run 2 — the same call again, as a retrying scheduler would`);
    const second = await cron(EARLY);
    console.log(`  ${summary(second)}`);
    const afterSecond = stack.mailSink.messages().length;
    const channelsAfterSecond = standIn.received().filter((r) => r.seq > setupSeq).length;
    const emailQuiet = afterSecond === afterFirst && second.emailsSent === 0;
    const channelsQuiet = channelsAfterSecond === channelsAfterFirst && (second.channels?.sent ?? 0) === 0;
    console.log(
      emailQuiet && channelsQuiet
        ? '  ✔ The second run sent nothing: no email, and no channel message.'
        : `  ✘ The second run sent ${emailQuiet ? '' : 'email'}${emailQuiet || channelsQuiet ? '' : ' and '}${channelsQuiet ? '' : 'channel messages'}!`,
    );
    const requestsAfterSecond = modelRequests();
    if (ai) console.log(scoredOnceLine(requestsAfterFirst, requestsAfterSecond));

    const newcomerSent = await welcomeANewcomer(env, () => stack.mailSink.messages());

    heading(`Run 3 — GET /api/cron at ${DIGEST_TIME} (the daily digest hour has passed)`);
    console.log(`  ${summary(await cron(DIGEST_TIME))}`);
    heading(`Run 4 — and again`);
    const fourth = await cron(DIGEST_TIME);
    console.log(`  ${summary(fourth)}`);
    console.log(fourth.emailsSent === 0 ? '  ✔ One digest per subscriber per day: the repeat sent nothing.' : '  ✘ The repeat sent email!');
    received('Final inboxes');
    const newcomerFinal = stack.mailSink.messages().filter((m) => m.to.includes(NEWCOMER.email));
    console.log(`  ${NEWCOMER.email}: ${newcomerFinal.length} emails`);
    for (const m of newcomerFinal) console.log(`    ✉ ${m.subject}`);
    const welcomedOnce = newcomerFinal.length === newcomerSent;
    console.log(
      welcomedOnce
        ? '  ✔ The welcome’s postings were not sent again: the newcomer’s digest had nothing new for them.'
        : '  ✘ The newcomer got more email after the welcome!',
    );
    heading('Channels, all four runs');
    const twice = repeatedMessages(standIn.received());
    console.log(
      twice === 0
        ? `  ✔ No channel got any message twice (${standIn.received().length} in all, counting the Slack code and the bot's greeting).`
        : `  ✘ ${twice} channel message${twice === 1 ? ' was' : 's were'} received twice!`,
    );
    const emails = rows.map((row) => row.input!.email);
    if (ai) await showVerdicts(db, emails, modelRequests());
    console.log(`\nOpen the inbox page: ${stack.mailSink.url}/  (run with --keep to leave it up)`);
    console.log(`What the channels received: ${standIn.url}/_stand-in/received`);
    const askedTwice = requestsAfterSecond !== requestsAfterFirst;
    if (!emailQuiet || !channelsQuiet || twice > 0 || fourth.emailsSent !== 0 || askedTwice || !welcomedOnce) process.exitCode = 1;
  } finally {
    if (keep) {
      console.log(
        `\nStack left running — Scout ${app.url}, inbox ${stack.mailSink.url}, channels ${stack.channelStandIn?.url}. Ctrl-C to stop.`,
      );
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
    await app.stop();
    await stack.stop();
  }
}

/** What the channels accepted since `afterSeq` (the verification and the bot's greeting come before), one line each; answers how many. */
function channelsReceived(standIn: ChannelStandIn, afterSeq: number, label: string): number {
  heading(label);
  const since = standIn.received().filter((r) => r.seq > afterSeq);
  for (const line of channelMessageLines(since)) console.log(line);
  return since.length;
}

/** Messages a destination accepted more than once, byte for byte: an instant alert is sent at most once. */
function repeatedMessages(received: readonly ReceivedRequest[]): number {
  const seen = new Set<string>();
  let repeats = 0;
  for (const r of received) {
    const key = `${r.platform}\0${r.destination}\0${r.rawBody}`;
    if (seen.has(key)) repeats += 1;
    seen.add(key);
  }
  return repeats;
}

/**
 * Signs a newcomer up and confirms them through the real handlers, on the replayed morning's clock
 * (the routes would use today's, and the sample postings are from 30 Nov 2026), and shows the
 * welcome email the confirmation sent at once. Answers how many emails the newcomer has.
 */
async function welcomeANewcomer(env: Record<string, string>, messages: () => { to: string[]; subject: string; text?: string | null }[]) {
  const { loadConfig } = await import('../lib/runtime/config');
  const { buildDeps } = await import('../lib/wiring/production-deps');
  const { handleSignupRequest } = await import('../lib/subscriptions/handle-signup-request');
  const { handleConfirmRequest } = await import('../lib/subscriptions/handle-confirm-request');
  const deps = buildDeps(loadConfig(env));
  const now = new Date(SIGNUP_TIME);
  heading(`A newcomer signs up at ${SIGNUP_TIME} (${NEWCOMER.email}, daily, ${NEWCOMER.keywords}) and confirms`);
  const signup = new Request(`${env.APP_URL}/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(NEWCOMER),
  });
  const signedUp = await handleSignupRequest(signup, { ...deps, now });
  if (signedUp.status !== 202) throw new Error(`POST /api/signup → ${signedUp.status} ${await signedUp.text()}`);
  const mine = () => messages().filter((m) => m.to.includes(NEWCOMER.email));
  const link = mine()
    .map((m) => m.text?.match(new RegExp(`${env.APP_URL}/confirm\\?token=[\\w.-]+`))?.[0])
    .find(Boolean);
  if (!link) throw new Error('no confirmation link in the newcomer’s inbox');
  const confirm = new Request(link, { method: 'POST', body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const confirmed = await handleConfirmRequest(confirm, { ...deps, now: new Date(now.getTime() + 60_000) });
  const page = await confirmed.text();
  console.log(`  POST /confirm → ${confirmed.status}: ${page.match(/<p id="welcome">([^<]*)/)?.[1]?.replaceAll('&#x27;', "'") ?? ''}`);
  const welcome = mine().find((m) => m.subject.startsWith('Welcome'));
  if (welcome) {
    console.log(`  ✉ ${welcome.subject}`);
    for (const line of (welcome.text ?? '').split('\n').filter((l) => /^(\* |Your next)/.test(l))) console.log(`    ${line.trim()}`);
  } else console.log('  ✘ No welcome email!');
  return mine().length;
}

/** --ai: what the model said, read back from matches/, and where the emails show it. */
async function showVerdicts(db: Firestore, emails: string[], modelRequests: number) {
  const { verdictLines } = await import('./demo/verdicts-table');
  const { DEFAULT_FIT_THRESHOLD } = await import('../lib/subscribers/fit-profile');
  heading(
    `Verdicts in matches/ — ${modelRequests} model request${modelRequests === 1 ? '' : 's'} in all (${env.AI_MODEL} at ${env.AI_BASE_URL})`,
  );
  for (const line of await verdictLines(db, emails)) console.log(line);
  if (modelRequests === 0) console.log('  The cycle asked the model nothing, so there are no verdicts to show.');
  else
    console.log(
      `  Emails carry the reasons: every alert and digest item shows its fit and the reason above; a pair below the subscriber's fit threshold (${DEFAULT_FIT_THRESHOLD} by default) is skipped and sent to nobody.`,
    );
}

/** --ai, after run 2: the repeat must not pay the model again; a check that held only because nothing was asked says so. */
function scoredOnceLine(afterFirst: number, afterSecond: number): string {
  if (afterSecond !== afterFirst)
    return `  ✘ The second run asked the model again: ${afterFirst} model requests after run 1, ${afterSecond} after run 2!`;
  if (afterFirst === 0) return '  The model was asked nothing in either run.';
  return `  ✔ Nor did it ask the model again: ${afterFirst} model request${afterFirst === 1 ? '' : 's'} in run 1, none since (each subscriber and posting is scored once).`;
}

main().catch((error) => {
  console.error(`\n${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
