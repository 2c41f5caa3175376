import type { CycleDeps } from '../cycle/cycle-deps';
import type { AuthFailureLog } from '../ops/auth-failures';
import type { SendChannelTest } from '../subscriptions/channel-test-message';

/**
 * The whole app's dependencies: built once per server instance (production-deps.ts) and handed
 * to the request handlers only. Everything below them takes the narrow part it uses.
 */
export type AppDeps = CycleDeps & {
  /** The process's rate limit on failed-authentication log lines (lib/ops/auth-failures.ts). */
  authFailureLog: AuthFailureLog;
  /** A channel's verification message, sent now (lib/subscriptions/channel-test-message.ts). */
  sendChannelTest: SendChannelTest;
};
