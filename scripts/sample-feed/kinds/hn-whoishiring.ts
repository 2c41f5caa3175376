import type { SampleKind } from './sample-kind';
import { offsetToNow, readFixtureJson } from './recent-dates';

type Hit = { title: string; created_at: string; created_at_i: number; objectID: string; _highlightResult?: { title?: { value: string } } };
type Item = { id: number; title?: string; created_at?: string; created_at_i?: number; children?: Item[] };

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH_IN_TITLE = /\((\w+) (\d{4})\)$/;

/**
 * The thread search and the October 2026 thread (fixtures/hn-whoishiring/) at Algolia's paths,
 * moved so the newest comment is an hour old: every date by one offset, and every thread's title
 * renamed to the month its new date falls in (last month's thread stays one month older), so the
 * adapter finds "this month's" thread — or, on the first of a month, last month's — whenever it runs.
 */
export const hnWhoIsHiringSample: SampleKind = {
  kind: 'hn-whoishiring',
  async served(now = new Date()) {
    const search = (await readFixtureJson('hn-whoishiring', 'search-by-date.json')) as { hits: Hit[] };
    const thread = (await readFixtureJson('hn-whoishiring', 'item-49811201.json')) as Item;
    const times = (item: Item): number[] => [item.created_at_i ?? 0, ...(item.children ?? []).flatMap(times)];
    const offsetSeconds = Math.round(offsetToNow(new Date(Math.max(...times(thread)) * 1000), now) / 1000);
    const threadMonth = monthOf(new Date((thread.created_at_i! + offsetSeconds) * 1000));
    const fixtureMonth = monthIndex(thread.title!);
    const retitle = (title: string) => {
      const index = monthIndex(title);
      if (index === null || fixtureMonth === null) return title;
      const month = threadMonth - (fixtureMonth - index);
      return title.replace(MONTH_IN_TITLE, `(${MONTHS[month % 12]} ${Math.floor(month / 12)})`);
    };
    const move = (item: Item) => {
      if (item.created_at_i) {
        item.created_at_i += offsetSeconds;
        item.created_at = new Date(item.created_at_i * 1000).toISOString();
      }
      if (item.title) item.title = retitle(item.title);
      item.children?.forEach(move);
    };
    move(thread);
    for (const hit of search.hits) {
      hit.created_at_i += offsetSeconds;
      hit.created_at = new Date(hit.created_at_i * 1000).toISOString();
      hit.title = retitle(hit.title);
      if (hit._highlightResult?.title) hit._highlightResult.title.value = hit.title;
    }
    return {
      '/api/v1/search_by_date': { body: JSON.stringify(search, null, 2), contentType: 'application/json; charset=utf-8' },
      [`/api/v1/items/${thread.id}`]: { body: JSON.stringify(thread, null, 2), contentType: 'application/json; charset=utf-8' },
    };
  },
  entry: (origin) => ({ kind: 'hn-whoishiring', id: 'hn-whoishiring-sample', params: { baseUrl: origin } }),
};

/** Months since year 0, so that "one month before" crosses years by plain subtraction. */
function monthOf(date: Date): number {
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

function monthIndex(title: string): number | null {
  const match = MONTH_IN_TITLE.exec(title);
  const month = match ? MONTHS.indexOf(match[1]) : -1;
  return match && month >= 0 ? Number(match[2]) * 12 + month : null;
}
