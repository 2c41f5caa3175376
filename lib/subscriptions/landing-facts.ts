import type { Firestore } from 'firebase-admin/firestore';
import type { StoredPosting } from '../feeds/postings-collection';
import type { ConfiguredSource } from '../feeds/source-adapter';
import { sourceNamesForVisitors } from '../feeds/sources-read';
import { recentPostingsForPreview } from '../preview/shared-window';
import { pickSamplePosting } from './landing-sample';

/** Past this the landing page is drawn without what the store would add: a visitor waits for nothing. */
export const LANDING_READ_BUDGET_MS = 1_500;

export type LandingFacts = { sources: string[]; sample: StoredPosting | null };

/**
 * What the landing page says about this deployment: the sources it reads, by the names their
 * cards carry, and one real posting for the sample card. From the week's postings the preview
 * reads anyway (shared-window.ts: one read serves every preview and landing page of an instance for
 * a while, within a budget all instances share), so a visit costs no read of its own most of the
 * time. A store that is slow, over its budget or unreachable leaves the configured names and no sample.
 */
export async function landingFacts(input: {
  db: Firestore;
  sources: readonly ConfiguredSource[];
  now: Date;
  budgetMs?: number;
}): Promise<LandingFacts> {
  const configured = () => ({ sources: sourceNamesForVisitors(input.sources), sample: null });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), input.budgetMs ?? LANDING_READ_BUDGET_MS);
  });
  try {
    const window = await Promise.race([recentPostingsForPreview(input.db, input.now), late]);
    if (!window || window.kind !== 'read') return configured();
    const postings = window.recent.postings;
    return {
      sources: sourceNamesForVisitors(
        input.sources,
        postings.flatMap((posting) => posting.sightings ?? []),
      ),
      sample: pickSamplePosting(postings),
    };
  } catch {
    return configured();
  } finally {
    clearTimeout(timer);
  }
}
