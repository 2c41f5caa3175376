import { DEFAULT_MODELS } from '../model-fake/server';
import { startScriptProcess } from './script-process';

/**
 * The model fake in a process of its own (`--ai`), answering every request `delayMs` late, as a
 * model takes its time. Driven over its HTTP surface: each bench run uses its own API key, so the
 * fake's count for that key is the requests that run made.
 */
export type ModelFakeProcess = {
  /** The OpenAI-compatible base URL: AI_BASE_URL. */
  baseUrl: string;
  model: string;
  delayMs: number;
  requestCount(apiKey: string): Promise<number>;
  /** Forgets the key's recorded requests: the fake keeps every body, thousands per run. */
  clearRequests(apiKey: string): Promise<void>;
  close(): Promise<void>;
};

export async function startModelFakeProcess(input: { delayMs: number }): Promise<ModelFakeProcess> {
  const { url, close } = await startScriptProcess(new URL('../model-fake/main.ts', import.meta.url), [
    '--port',
    '0',
    '--delay-ms',
    String(input.delayMs),
  ]);
  return {
    baseUrl: `${url}/v1`,
    model: DEFAULT_MODELS[0],
    delayMs: input.delayMs,
    async requestCount(apiKey) {
      const res = await fetch(`${url}/__requests/count?${new URLSearchParams({ apiKey })}`);
      if (!res.ok) throw new Error(`model fake request count: ${res.status}`);
      return ((await res.json()) as { count: number }).count;
    },
    async clearRequests(apiKey) {
      const res = await fetch(`${url}/__requests?${new URLSearchParams({ apiKey })}`, { method: 'DELETE' });
      if (!res.ok) throw new Error(`model fake clear requests: ${res.status}`);
    },
    close,
  };
}
