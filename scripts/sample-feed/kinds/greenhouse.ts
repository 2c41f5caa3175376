import type { SampleKind } from './sample-kind';
import { onSampleDay, readBoardFixture } from './board-sample-day';

const BOARD = 'northwindlabs';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Greenhouse on the local stack: Northwind Labs' board (fixtures/greenhouse) at the Job Board
 * API's own paths — the job list, and the board whose name the adapter asks when the entry names
 * no company.
 */
export const greenhouseSample: SampleKind = {
  kind: 'greenhouse',
  async served() {
    const list = JSON.parse(await readBoardFixture('greenhouse', 'greenhouse.json')) as { jobs: Array<{ updated_at: string }> };
    const move = onSampleDay(list.jobs.map((job) => Date.parse(job.updated_at)));
    for (const job of list.jobs) job.updated_at = new Date(move(Date.parse(job.updated_at))).toISOString();
    return {
      [`/v1/boards/${BOARD}/jobs`]: { body: JSON.stringify(list), contentType: JSON_TYPE },
      [`/v1/boards/${BOARD}`]: { body: await readBoardFixture('greenhouse', 'board.json'), contentType: JSON_TYPE },
    };
  },
  entry: (origin) => ({ kind: 'greenhouse', id: 'greenhouse-sample', params: { baseUrl: origin, board: BOARD } }),
};
