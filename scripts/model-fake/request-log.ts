import type { RecordedRequest } from './types';

/** Every chat-completions request, kept per API key: a test reads only the requests its own key made. */
export function createRequestLog() {
  const byKey = new Map<string, RecordedRequest[]>();
  return {
    record(apiKey: string, request: RecordedRequest) {
      const list = byKey.get(apiKey) ?? [];
      list.push(request);
      byKey.set(apiKey, list);
    },
    list: (apiKey: string): RecordedRequest[] => structuredClone(byKey.get(apiKey) ?? []),
    count: (apiKey: string): number => byKey.get(apiKey)?.length ?? 0,
    clear: (apiKey?: string) => (apiKey === undefined ? byKey.clear() : byKey.delete(apiKey)),
  };
}

export type RequestLog = ReturnType<typeof createRequestLog>;
