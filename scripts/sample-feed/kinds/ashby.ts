import type { SampleKind } from './sample-kind';
import { onSampleDay, readBoardFixture } from './board-sample-day';

const BOARD = 'quillstack';

/** Ashby on the local stack: Quillstack's job board (fixtures/ashby) at the posting API's own path. */
export const ashbySample: SampleKind = {
  kind: 'ashby',
  async served() {
    const board = JSON.parse(await readBoardFixture('ashby', 'ashby.json')) as { jobs: Array<{ publishedAt: string }> };
    const move = onSampleDay(board.jobs.map((job) => Date.parse(job.publishedAt)));
    for (const job of board.jobs) job.publishedAt = new Date(move(Date.parse(job.publishedAt))).toISOString();
    return { [`/posting-api/job-board/${BOARD}`]: { body: JSON.stringify(board), contentType: 'application/json; charset=utf-8' } };
  },
  entry: (origin) => ({ kind: 'ashby', id: 'ashby-sample', params: { baseUrl: origin, board: BOARD, company: 'Quillstack' } }),
};
