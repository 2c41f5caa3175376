import { withProductionDeps } from '../../../lib/wiring/production-deps';
import { handleTelegramUpdate } from '../../../lib/subscriptions/handle-telegram-update';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Scout's Telegram bot's webhook (docs/channels.md "The Telegram bot"): /start binds a chat, /stop removes it. */
export const POST = withProductionDeps((request, deps) =>
  handleTelegramUpdate(request, {
    db: deps.db,
    config: deps.config,
    now: new Date(),
    log: deps.log,
    sendChannelTest: deps.sendChannelTest,
  }),
);
