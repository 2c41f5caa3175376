import { ashbySample } from './kinds/ashby';
import { greenhouseSample } from './kinds/greenhouse';
import { leverSample } from './kinds/lever';
import { hnWhoIsHiringSample } from './kinds/hn-whoishiring';
import { remoteOkSample } from './kinds/remoteok';
import { remotiveSample } from './kinds/remotive';
import type { SampleKind, SourceEntry } from './kinds/sample-kind';
import { upworkSampleKind } from './kinds/upwork';

/**
 * Every kind the local stack serves besides the bundled RSS sample (which FEED_URLS names):
 * `npm run demo`, `npm run dev` and the tests read them all from the sample source server.
 */
export const SAMPLE_KINDS: SampleKind[] = [
  greenhouseSample,
  leverSample,
  ashbySample,
  upworkSampleKind,
  remotiveSample,
  remoteOkSample,
  hnWhoIsHiringSample,
];

/** The SOURCES value that reads every sample kind from a server at `origin`. */
export function sampleSourceEntries(origin: string): SourceEntry[] {
  return SAMPLE_KINDS.map((kind) => kind.entry(origin));
}
