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
    close,
  };
}
