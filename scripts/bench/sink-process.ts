import { startScriptProcess } from './script-process';

/**
 * The mail sink in a process of its own, so the bench's peak memory is Scout's alone. It keeps
 * every message's envelope but not its body (`--no-bodies`): at U=100,000 the bodies alone
 * outgrew a 4 GB heap. Driven over its HTTP surface: faults and message counts.
 */
export type SinkProcess = {
  url: string;
  setFaults(apiKey: string, faults: object): Promise<void>;
  count(apiKey: string): Promise<number>;
  /** The key's API requests as the sink counted them: admitted, and refused with a 429. */
  requests(apiKey: string): Promise<{ admitted: number; refused: number }>;
  close(): Promise<void>;
};

export async function startSinkProcess(): Promise<SinkProcess> {
  const { url, close } = await startScriptProcess(new URL('../mail-sink/main.ts', import.meta.url), ['--port', '0', '--no-bodies']);
  return {
    url,
    async setFaults(apiKey, faults) {
      const res = await fetch(`${url}/sink/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKey, ...faults }),
      });
      if (!res.ok) throw new Error(`sink faults: ${res.status}`);
    },
    async count(apiKey) {
      const res = await fetch(`${url}/sink/messages/count?${new URLSearchParams({ apiKey })}`);
      return ((await res.json()) as { count: number }).count;
    },
    async requests(apiKey) {
      const res = await fetch(`${url}/sink/requests?${new URLSearchParams({ apiKey })}`);
      if (!res.ok) throw new Error(`sink requests: ${res.status}`);
      const { admitted, refused } = (await res.json()) as { admitted: number; refused: number };
      return { admitted, refused };
    },
    close,
  };
}
