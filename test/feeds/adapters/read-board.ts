import { readFileSync } from 'node:fs';
import { fetch } from 'undici';
import type { Firestore } from 'firebase-admin/firestore';
import type { Config } from '../../../lib/runtime/config';
import type { AnySourceAdapter, SourceRead, Validators } from '../../../lib/feeds/source-adapter';
import { createSourceHttp } from '../../../lib/feeds/source-http';

/** A research-step fixture of a board kind (scripts/sample-feed/fixtures/<kind>/<file>), as text. */
export function boardFixture(kind: string, file: string): string {
  return readFileSync(new URL(`../../../scripts/sample-feed/fixtures/${kind}/${file}`, import.meta.url), 'utf8');
}

/**
 * One `read` of an adapter over loopback, through the same guarded http the runner builds. The
 * board kinds keep no state of their own, so no store and no config are handed over.
 */
export function readOverLoopback(
  adapter: AnySourceAdapter,
  source: { id: string; params: Record<string, unknown> },
  validators: Validators | null = null,
): Promise<SourceRead> {
  const configured = {
    kind: adapter.kind,
    id: source.id,
    params: adapter.params.parse(source.params),
    timeoutMs: 5_000,
    maxBytes: 1_000_000,
    minIntervalMinutes: 0,
  };
  return adapter.read({
    source: configured,
    http: createSourceHttp({
      source: source.id,
      fetch,
      timeoutMs: 5_000,
      maxBytes: 1_000_000,
      allowPrivateAddresses: true,
      redirects: adapter.redirects,
      userAgent: 'ScoutBot/1.0',
    }),
    validators,
    now: new Date('2026-11-30T06:00:00Z'),
    db: null as unknown as Firestore,
    config: null as unknown as Config,
  });
}
