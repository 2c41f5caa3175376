// PLACEHOLDER until the transports land: replaced wholesale at merge.
import type { ChannelKind } from '../channel';
import type { ChannelSendOutcome } from '../channel-outcome';

export type ChannelHttpDeps = {
  allowLoopback: boolean;
  telegram: { apiBaseUrl: string; botToken: string } | null;
  timeoutMs?: number;
  now?: () => Date;
};

export async function sendChannelRequest(
  target: { kind: ChannelKind; destination: string; secret: string | null },
  request: { body: string; messageId: string; attempt: number },
  _deps: ChannelHttpDeps,
): Promise<ChannelSendOutcome> {
  const url = target.kind === 'telegram' ? 'http://127.0.0.1:1/' : target.destination;
  const answer = await fetch(url, {
    method: 'POST',
    body: request.body,
    headers: { 'content-type': 'application/json', 'webhook-id': request.messageId },
  });
  return answer.ok ? { status: 'sent', detail: null } : { status: 'unknown', error: String(answer.status) };
}
