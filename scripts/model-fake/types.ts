/** One injected fault. `count` is how many requests it affects; without one it lasts until cleared. */
export type ModelFault =
  | { mode: 'slow'; ms: number; count?: number }
  | { mode: '500'; count?: number }
  | { mode: '429'; retryAfterSeconds: number; count?: number }
  | { mode: 'malformed'; count?: number }
  | { mode: 'refusal'; count?: number }
  | { mode: 'drop'; count?: number }
  /** Not a failure: the answers obey instructions planted in posting text (scoring.ts scoreObediently). */
  | { mode: 'obedient'; count?: number };

export type FaultMode = ModelFault['mode'];

/** What the fake kept of one authenticated chat-completions request, so tests can check what Scout sent. */
export type RecordedRequest = {
  receivedAt: string;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The fault that answered it, if any ('slow' only when nothing else fired). */
  fault: FaultMode | null;
};

export type ModelFakeOptions = {
  port?: number;
  host?: string;
  /** Model ids the fake serves; a request for any other gets 404 model_not_found, as OpenAI answers. */
  models?: string[];
  /** The fake's clock (ms since epoch): `created` and `receivedAt`. */
  now?: () => number;
  /**
   * Latency added to every chat-completions request, for every key, before any fault: a model's
   * answer time, so a bench can measure what waiting on a model costs. Not a fault: requests it
   * delays are recorded with `fault: null`. 0 by default.
   */
  delayMs?: number;
};

export type ModelFake = {
  url: string;
  /** The OpenAI-compatible base URL to configure a client with (`${url}/v1`). */
  baseUrl: string;
  port: number;
  models: string[];
  /** The latency every chat-completions request gets (ModelFakeOptions.delayMs). */
  delayMs: number;
  close(): Promise<void>;
  setFaults(apiKey: string, faults: ModelFault[]): void;
  requests(apiKey: string): RecordedRequest[];
  clearRequests(apiKey?: string): void;
};
