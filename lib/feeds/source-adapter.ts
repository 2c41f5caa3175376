import type { Firestore } from 'firebase-admin/firestore';
import type { z } from 'zod';
import type { Config } from '../runtime/config';
import type { Posting } from './posting';
import type { SourceHttp } from './source-http';

/** One entry of SOURCES, validated: its kind's parameters parsed by that kind's schema, its limits resolved. */
export type ConfiguredSource<P = Record<string, unknown>> = {
  kind: string;
  /** [a-z0-9-], 1-64 chars: it prefixes the jobs/ ids of its postings (`{id}_{hash}`), so never `_`. */
  id: string;
  params: P;
  timeoutMs: number;
  maxBytes: number;
  /** No fetch sooner than this after the last one (a provider's terms, or the operator's choice). */
  minIntervalMinutes: number;
};

/** The validators of a source's last stored success, for a conditional request. */
export type Validators = { etag: string | null; lastModified: string | null };

export type SourceRead =
  | { status: 'not-modified' }
  /** `validators`: saved only once the postings are stored, so a crash in between re-fetches. */
  | {
      status: 'ok';
      postings: Posting[];
      validators: Validators | null;
      /** The name the answer gives its source (a feed's title, read by source-name.ts): a card's "Seen on", before the adapter's. */
      siteName?: string | null;
    };

export type SourceReadInput<P> = {
  source: ConfiguredSource<P>;
  /** Bound to this source's timeout, byte cap and address rules. */
  http: SourceHttp;
  /** Null on a dry run (it wants what is there, not what changed) and before the first success. */
  validators: Validators | null;
  now: Date;
  /** For the few adapters that keep state of their own (Upwork's OAuth2 token). */
  db: Firestore;
  config: Config;
};

/**
 * A kind of job source. An adapter reads its source through `http` and returns Postings (plain
 * text, capped, with deterministic ids `postingId(source.id, providerJobId)`). It throws
 * FeedFetchError for a failed request and FeedParseError for an answer that does not have the
 * documented shape: a response that fails validation yields no postings at all, never a part.
 * Its health is reported by the runner from what `read` returned or threw (feeds/{source}).
 */
export type SourceAdapter<P = Record<string, unknown>> = {
  kind: string;
  /** The public documentation this adapter follows (README "Sources" lists it). */
  documentation: string;
  /** The `params` of a SOURCES entry of this kind. */
  params: z.ZodType<P>;
  /** Feeds may move between hosts; APIs answer from the host asked, or not at all. */
  redirects: 'any-public-host' | 'same-host';
  /** Default minimum interval between fetches, in minutes (a provider's rate terms); 0: every run. */
  minIntervalMinutes: number;
  /** How operators see the source named: "Greenhouse · acme", "Upwork · react developer". */
  label(source: ConfiguredSource<P>): string;
  /**
   * How a card names where the source's jobs were listed ("Seen on Upwork"): the board, not Scout's
   * query of it. Absent, the label. An answer that names itself (SourceRead `siteName`) comes first.
   */
  siteName?: (source: ConfiguredSource<P>) => string;
  /** A line an email must carry for postings of this source (a provider's attribution terms), or null. */
  attribution?: (source: ConfiguredSource<P>) => { text: string; url: string } | null;
  read(input: SourceReadInput<P>): Promise<SourceRead>;
};

/** Erases P for the registry: each adapter parses its own params before it sees them. */
export type AnySourceAdapter = SourceAdapter<any>;
