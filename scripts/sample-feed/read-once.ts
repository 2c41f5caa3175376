import type { Firestore } from 'firebase-admin/firestore';
import { fetch } from 'undici';
import type { Config } from '../../lib/runtime/config';
import type { AnySourceAdapter, SourceRead } from '../../lib/feeds/source-adapter';
import { createSourceHttp } from '../../lib/feeds/source-http';
import { startFeedServer, type ServedFeed } from './server';

/**
 * One `read` of an adapter over loopback, through the same guarded http the runner builds, against
 * a sample server answering `served` at the provider's paths (besides the sample kinds, dated to
 * `serverNow`). For adapters that keep no state of their own: no store, no config.
 */
export async function readOnce(
  adapter: AnySourceAdapter,
  input: { params: Record<string, unknown>; served?: Record<string, ServedFeed>; now: Date; id?: string; serverNow?: Date },
): Promise<SourceRead & { requests: string[] }> {
  const server = await startFeedServer({ feeds: input.served, ...(input.serverNow ? { now: () => input.serverNow! } : {}) });
  try {
    const id = input.id ?? `${adapter.kind}-test`;
    const params: unknown = adapter.params.parse({ baseUrl: server.url, ...input.params });
    const source = { kind: adapter.kind, id, params, timeoutMs: 5_000, maxBytes: 5_000_000, minIntervalMinutes: 0 };
    const http = createSourceHttp({
      source: id,
      fetch,
      timeoutMs: 5_000,
      maxBytes: 5_000_000,
      allowPrivateAddresses: true,
      redirects: adapter.redirects,
      userAgent: 'ScoutBot/1.0',
    });
    const result = await adapter.read({
      source,
      http,
      validators: null,
      now: input.now,
      db: null as unknown as Firestore,
      config: null as unknown as Config,
    });
    return { ...result, requests: server.requests().map((request) => request.path) };
  } finally {
    await server.close();
  }
}

export const json = (body: unknown): ServedFeed => ({
  body: typeof body === 'string' ? body : JSON.stringify(body),
  contentType: 'application/json; charset=utf-8',
});
