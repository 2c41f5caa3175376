import type { SampleKind } from './sample-kind';
import { onSampleDay, readBoardFixture } from './board-sample-day';

const SITE = 'harborhealth';

/** Lever on the local stack: Harbor Health's postings (fixtures/lever) at the Postings API's own path. */
export const leverSample: SampleKind = {
  kind: 'lever',
  async served() {
    const postings = JSON.parse(await readBoardFixture('lever', 'lever.json')) as Array<{ createdAt: number }>;
    const move = onSampleDay(postings.map((posting) => posting.createdAt));
    for (const posting of postings) posting.createdAt = move(posting.createdAt);
    return { [`/v0/postings/${SITE}`]: { body: JSON.stringify(postings), contentType: 'application/json; charset=utf-8' } };
  },
  entry: (origin) => ({ kind: 'lever', id: 'lever-sample', params: { baseUrl: origin, site: SITE, company: 'Harbor Health' } }),
};
