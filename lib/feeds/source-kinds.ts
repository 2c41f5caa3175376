import { ashbyAdapter } from './adapters/ashby-adapter';
import { feedAdapter } from './adapters/feed-adapter';
import { greenhouseAdapter } from './adapters/greenhouse-adapter';
import { leverAdapter } from './adapters/lever-adapter';
import { upworkAdapter } from './adapters/upwork-adapter';
import { hnWhoIsHiringAdapter } from './adapters/hn-whoishiring-adapter';
import { remoteOkAdapter } from './adapters/remoteok-adapter';
import { remotiveAdapter } from './adapters/remotive-adapter';
import type { AnySourceAdapter } from './source-adapter';

/**
 * Every kind a SOURCES entry may name, and the adapter that reads it. README "Sources" lists each
 * with its parameters and the documentation it follows.
 */
export const SOURCE_ADAPTERS: Record<string, AnySourceAdapter> = Object.fromEntries(
  [feedAdapter, greenhouseAdapter, leverAdapter, ashbyAdapter, upworkAdapter, remotiveAdapter, remoteOkAdapter, hnWhoIsHiringAdapter].map(
    (adapter) => [adapter.kind, adapter],
  ),
);

export function adapterFor(kind: string): AnySourceAdapter {
  const adapter = SOURCE_ADAPTERS[kind];
  if (!adapter) throw new Error(`unknown source kind "${kind}"`);
  return adapter;
}
