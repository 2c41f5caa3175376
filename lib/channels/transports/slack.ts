import { retryAfterMs } from '../../http/retry-after';
import type { ChannelSendOutcome } from '../channel-outcome';
import { jsonBody, redirectOutcome, secondsToMs, type ChannelAnswer } from './channel-http';

/**
 * Slack incoming webhooks (docs/channels.md, "What each platform's answer means"). Slack answers
 * 200 `ok`, or an error status whose body is a bare error code (`invalid_payload`, `no_service`);
 * a 429 carries Retry-After in seconds. Slack documents 400 for a request it cannot take, 403 for
 * a webhook a workspace forbids or whose token is invalid, 404 for one removed or disabled, 410
 * for an archived channel, 500 for its own failures.
 */
export const SLACK_CONTENT_TYPE = 'application/json';

const SLACK_CODE = /^[a-z_]{1,64}$/;

/** Slack's error code from the body: a bare word (`no_service`), or `error` in the JSON a 429 may carry; else nothing. */
function slackCode(answer: ChannelAnswer): string {
  const bare = answer.body.trim();
  if (SLACK_CODE.test(bare)) return bare;
  const error = jsonBody(answer)?.error;
  return typeof error === 'string' && SLACK_CODE.test(error) ? error : '';
}

export function classifySlackAnswer(answer: ChannelAnswer): ChannelSendOutcome {
  const { status } = answer;
  if (status >= 200 && status < 300) return { status: 'sent', detail: null };
  const error = `slack ${status} ${slackCode(answer)}`.trim();
  if (status >= 300 && status < 400) return redirectOutcome('slack', status);
  if (status === 429) {
    // Slack's note to rate-limited webhooks: the message did not make it into Slack.
    const wait = retryAfterMs(answer.headers['retry-after']) ?? secondsToMs(jsonBody(answer)?.retry_after);
    return { status: 'refused', retryAfterMs: wait, error };
  }
  // 403 (invalid_token, action_prohibited), 404 (no_service, channel_not_found, no_active_hooks),
  // 410 (channel_is_archived): this URL will not post again until someone changes it in Slack.
  if (status === 401 || status === 403 || status === 404 || status === 410) return { status: 'gone', error };
  if (status >= 500) return { status: 'unknown', error };
  return { status: 'rejected', error };
}
