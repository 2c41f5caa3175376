import { describeHostileAnswers, HUGE_STRING, SCRIPT_TITLE } from '../../support/hostile-sources';

const jsonFeed = (items: unknown) =>
  JSON.stringify({ version: 'https://jsonfeed.org/version/1.1', title: 'Jobs', home_page_url: 'https://jobs.example', items });

describeHostileAnswers({
  kind: 'feed',
  entry: (origin) => ({ kind: 'feed', id: 'hostile', params: { url: `${origin}/hostile.json` } }),
  path: '/hostile.json',
  contentType: 'application/feed+json',
  bodies: {
    valid: jsonFeed([
      {
        id: 'job-1',
        title: 'React developer',
        url: 'https://jobs.example/1',
        content_text: 'Build things in React. '.repeat(20),
        date_published: '2026-11-30T05:00:00Z',
      },
    ]),
    // JSON Feed 1.1: `items` is an array of objects.
    wrongTypes: JSON.stringify({ version: 'https://jsonfeed.org/version/1.1', title: 7, items: 'none' }),
    // JSON Feed 1.1: every item MUST have an id.
    missingIds: jsonFeed([{ title: 'React developer', content_text: 'No id' }]),
    hugeStrings: jsonFeed([{ id: 'job-2', title: HUGE_STRING, url: 'https://jobs.example/2', content_text: HUGE_STRING }]),
    scriptTitles: jsonFeed([{ id: 'job-3', title: SCRIPT_TITLE, url: 'https://jobs.example/3', content_text: 'x' }]),
  },
});
