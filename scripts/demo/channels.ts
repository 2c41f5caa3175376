/**
 * The demo's channels: one instant subscriber connects Slack and Telegram the way a person does,
 * through the running app (the preferences page's forms, Telegram's /start in the chat), with the
 * channel stand-in playing both platforms; and what each channel then received, one line a message.
 */
import { connectTelegramWebhook } from '../../lib/channels/telegram-bot';
import { preferencesUrl } from '../../lib/subscribers/link-token';
import type { ChannelStandIn, ReceivedRequest } from '../channel-stand-in/server';

/** The demo subscriber's Slack incoming webhook on the stand-in: its destination key. */
export const DEMO_SLACK_PATH = 'T0SCOUTDEMO/B0SCOUTDEMO/demoWebhookSecret';
/** The demo subscriber's Telegram chat: the stand-in makes up the rest of the user. */
export const DEMO_TELEGRAM_CHAT = 424242001;

type Form = Record<string, string>;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" };
const unescape = (text: string) => text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (_, name: string) => ENTITIES[name]);

/** Every form on a page, as the hidden and filled fields a browser would post (React's markup: one attribute order). */
export function formsOf(html: string): Form[] {
  return [...html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/g)].map(([, inner]) => {
    const fields: Form = {};
    for (const [input] of inner.matchAll(/<input\b[^>]*>/g)) {
      const name = /\sname="([^"]*)"/.exec(input)?.[1];
      if (name) fields[unescape(name)] = unescape(/\svalue="([^"]*)"/.exec(input)?.[1] ?? '');
    }
    return fields;
  });
}

export type DemoChannelsInput = {
  /** Where the app listens (the demo's `next dev`). */
  appUrl: string;
  env: Record<string, string>;
  standIn: ChannelStandIn;
  uid: string;
  log: (line: string) => void;
};

/**
 * Slack (the code Scout posts there, typed back) and Telegram (the bot's webhook registered with
 * `scout telegram connect`'s function, then /start with the page's one-time token) for one
 * subscriber, each through the app's real handlers and on the real clock: the start link lives an
 * hour from now, not from the replayed morning. Throws, saying which step, when one does not hold.
 */
export async function connectDemoChannels(input: DemoChannelsInput): Promise<void> {
  const { env, standIn, log } = input;
  const link = new URL(preferencesUrl({ appUrl: env.APP_URL, uid: input.uid, secret: env.LINK_SECRET, issuedAt: new Date() }));
  const page = `${input.appUrl}${link.pathname}${link.search}`;
  const post = async (fields: Form, step: string) => {
    const answer = await fetch(page, { method: 'POST', body: new URLSearchParams(fields) });
    const html = await answer.text();
    if (answer.status !== 200) throw new Error(`${step}: POST /preferences → ${answer.status}`);
    return html;
  };

  const connected = await connectTelegramWebhook({
    APP_URL: env.APP_URL,
    LINK_SECRET: env.LINK_SECRET,
    TELEGRAM_BOT_TOKEN: env.TELEGRAM_BOT_TOKEN,
    TELEGRAM_API_BASE_URL: env.TELEGRAM_API_BASE_URL,
  });
  if (!connected.ok) throw new Error(`scout telegram connect: ${connected.error}`);
  log(`  scout telegram connect → the stand-in's bot posts updates to ${connected.url}`);

  const slackPage = await post({ action: 'channel-add', kind: 'slack', url: standIn.slackUrl(DEMO_SLACK_PATH) }, 'adding Slack');
  const code = standIn
    .received({ platform: 'slack', destination: DEMO_SLACK_PATH })
    .map((r) => /`(\d{6})`/.exec(r.rawBody)?.[1])
    .filter(Boolean)
    .at(-1);
  const verify = formsOf(slackPage).find((form) => form.action === 'channel-verify');
  if (!code || !verify) throw new Error('adding Slack: no code reached the stand-in, or the page offers no code to type');
  await post({ ...verify, code }, 'verifying Slack');
  log(`  Slack: added on the preferences page, the code ${code} it got typed back → verified`);

  const telegramPage = await post({ action: 'channel-add', kind: 'telegram' }, 'connecting Telegram');
  const start = /https:\/\/t\.me\/\w+\?start=([\w-]+)/.exec(telegramPage);
  if (!start) throw new Error('connecting Telegram: the page shows no start link');
  const delivery = await standIn.telegramMessage({ chatId: DEMO_TELEGRAM_CHAT, text: `/start ${start[1]}` });
  if (!delivery.delivered) throw new Error(`Telegram's /start did not reach the app: ${delivery.error}`);
  log(`  Telegram: the page's link ${start[0].replace(/start=.*/, 'start=…')}, /start sent in chat ${DEMO_TELEGRAM_CHAT} → bound`);

  const states = formsOf(await (await fetch(page)).text()).filter((form) => form.action === 'channel-pause').length;
  if (states !== 2) throw new Error(`the preferences page shows ${states} active channels, not 2`);
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** A message's headline and first posting's title, as its platform shows them; null for what it cannot read. */
function describe(request: ReceivedRequest): { headline: string; title: string | null } | null {
  const body = request.body as Record<string, unknown> | null;
  if (!body || typeof body !== 'object') return null;
  if (request.platform === 'slack') {
    const blocks = (body.blocks ?? []) as { type: string; text?: { text?: string } }[];
    const headline = blocks.find((b) => b.type === 'header')?.text?.text ?? text(body.text);
    const first = blocks.find((b) => b.type === 'section' && /^\*/.test(b.text?.text ?? ''))?.text?.text ?? '';
    const title = /^\*(?:<[^|>]*\|)?([^\n]*?)>?\*$/m.exec(first)?.[1];
    return { headline, title: title ? unescape(title) : null };
  }
  if (request.platform === 'discord') {
    const headline = /^\*\*(.*)\*\*$/m.exec(text(body.content))?.[1] ?? '';
    const title = ((body.embeds ?? []) as { title?: string }[])[0]?.title ?? null;
    return { headline, title };
  }
  if (request.platform === 'telegram') {
    const bold = [...text(body.text).matchAll(/<b>(.*?)<\/b>/g)].map(([, inner]) => unescape(inner.replace(/<[^>]+>/g, '')));
    return { headline: bold[0] ?? text(body.text).split('\n')[0], title: bold[1] ?? null };
  }
  const data = body.data as { postings?: { title?: string }[] } | undefined;
  return { headline: text(body.type), title: data?.postings?.[0]?.title ?? null };
}

/** One line per message a channel accepted: platform, destination, what it says first (its first posting's title). */
export function channelMessageLines(received: readonly ReceivedRequest[]): string[] {
  const accepted = received.filter((r) => r.accepted);
  if (accepted.length === 0) return ['  (no channel received anything)'];
  return accepted.map((request) => {
    const said = describe(request);
    const what = !said ? request.rawBody.slice(0, 60) : said.title ? `${said.headline} — ${said.title}` : said.headline;
    return `  ${request.platform.padEnd(8)} ${request.destination.padEnd(42)} ${what}`;
  });
}
