import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonRequest, sendJson } from '../mail-sink/http-io';
import { parseFault } from './fault-book';
import { STAND_IN_PLATFORMS, type ChannelStandIn, type ReceivedFilter, type StandInPlatform } from './types';

/**
 * The control API under /_stand-in/, for a stand-in in another process (the demo, the chaos
 * suite): the same calls the in-process handle offers. Errors are `{error}` with 4xx.
 */
export const CONTROL_PREFIX = '/_stand-in/';

type Control = Pick<ChannelStandIn, 'received' | 'inject' | 'clearFaults' | 'reset' | 'telegramMessage' | 'telegramWebhook'> & {
  faults(): unknown[];
};

const refuse = (res: ServerResponse, status: number, error: string) => sendJson(res, status, { error });
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function filterFrom(query: URLSearchParams): ReceivedFilter | string {
  const platform = query.get('platform') || undefined;
  if (platform !== undefined && !(STAND_IN_PLATFORMS as readonly string[]).includes(platform)) return `unknown platform "${platform}"`;
  return {
    destination: query.get('destination') ?? undefined,
    platform: platform as StandInPlatform | undefined,
    all: query.get('all') === 'true',
  };
}

async function handleFaults(control: Control, req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
  if (req.method === 'GET') return sendJson(res, 200, { faults: control.faults() });
  if (req.method === 'DELETE') {
    const destination = query.get('destination') || undefined;
    control.clearFaults(destination);
    return sendJson(res, 200, { cleared: destination ?? 'all' });
  }
  if (req.method !== 'POST') return refuse(res, 405, 'GET, POST or DELETE');
  const body = await readJsonRequest(req, res);
  if (!body) return;
  const fault = parseFault(body.value);
  if (!fault.ok) return refuse(res, 422, fault.message);
  control.inject(fault.value);
  sendJson(res, 200, { faults: control.faults() });
}

async function handleTelegramMessage(control: Control, req: IncomingMessage, res: ServerResponse) {
  if (req.method !== 'POST') return refuse(res, 405, 'POST');
  const body = await readJsonRequest(req, res);
  if (!body) return;
  const { chatId, text, from, botToken } = isObject(body.value) ? body.value : {};
  if ((typeof chatId !== 'number' && typeof chatId !== 'string') || typeof text !== 'string' || text === '') {
    return refuse(res, 422, 'expected {chatId: number | string, text: string, from?: {id, firstName, username}, botToken?}');
  }
  const sender = isObject(from)
    ? {
        id: typeof from.id === 'number' ? from.id : undefined,
        firstName: typeof from.firstName === 'string' ? from.firstName : undefined,
        username: typeof from.username === 'string' ? from.username : undefined,
      }
    : undefined;
  const delivery = await control.telegramMessage({
    chatId,
    text,
    from: sender,
    botToken: typeof botToken === 'string' ? botToken : undefined,
  });
  sendJson(res, 200, delivery);
}

export async function handleControl(control: Control, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams) {
  const route = path.slice(CONTROL_PREFIX.length);
  if (route === 'received') {
    if (req.method !== 'GET') return refuse(res, 405, 'GET');
    const filter = filterFrom(query);
    if (typeof filter === 'string') return refuse(res, 422, filter);
    return sendJson(res, 200, { received: control.received(filter) });
  }
  if (route === 'faults') return handleFaults(control, req, res, query);
  if (route === 'reset') {
    if (req.method !== 'POST') return refuse(res, 405, 'POST');
    control.reset();
    return sendJson(res, 200, { reset: true });
  }
  if (route === 'telegram/message') return handleTelegramMessage(control, req, res);
  if (route === 'telegram/webhook') {
    if (req.method !== 'GET') return refuse(res, 405, 'GET');
    return sendJson(res, 200, { webhook: control.telegramWebhook(query.get('botToken') || undefined) });
  }
  refuse(res, 404, `no control route ${path}`);
}
