import type { ChannelContent, ChannelPosting } from '../../../lib/channels/channel-content';
import type { ChannelKind } from '../../../lib/channels/channel';

/** The four kinds, for tests that render through every format. */
export const KINDS: ChannelKind[] = ['slack', 'discord', 'telegram', 'webhook'];

export const LINKS = {
  preferences: 'https://scout.example.com/preferences?token=v1.Zm9vYmFy.c2lnbmF0dXJl',
  archive: 'https://scout.example.com/archive?token=v1.Zm9vYmFy.c2lnbmF0dXJl',
};

export const TARGET = { chatId: '-1001234567890', createdAt: new Date('2026-12-06T08:00:03.250Z') };

const REALISTIC: Omit<ChannelPosting, 'id'>[] = [
  {
    title: 'Senior Frontend Engineer (React/TypeScript)',
    url: 'https://remotive.com/remote-jobs/software-dev/senior-frontend-engineer-react-typescript-1934512',
    company: 'Doist',
    place: 'Remote · Europe',
    pay: '€70,000–€90,000/year',
    reasons: ['“react” in the title', '“typescript” in the title', '“remote” in the description'],
    fit: 86,
    score: 74,
    source: 'Remotive',
  },
  {
    title: 'Full-Stack Developer – Node.js & PostgreSQL',
    url: 'https://boards.greenhouse.io/gitlab/jobs/7612093002?gh_src=scout',
    company: 'GitLab',
    place: 'Remote, Americas',
    pay: null,
    reasons: ['“node” in the title', '“postgres” in the skills'],
    fit: null,
    score: 58,
    source: 'Greenhouse: GitLab',
  },
  {
    title: 'Contract React Native developer for a 3-month fintech app build',
    url: 'https://www.upwork.com/jobs/~01a2b3c4d5e6f7a8b9',
    company: null,
    place: null,
    pay: '$45.00–$70.00/hour',
    reasons: ['“react” in the title'],
    fit: 71,
    score: 63,
    source: 'Upwork',
  },
  {
    title: 'Acme Robotics (YC W24) | Founding Engineer | Berlin or Remote | €90k–€120k + equity',
    url: 'https://news.ycombinator.com/item?id=42297424',
    company: 'Acme Robotics',
    place: 'Berlin, Germany',
    pay: '€90,000–€120,000/year',
    reasons: ['“typescript” in the description', '“robotics” in the description', '“berlin” in the description', '“founding” in the title'],
    fit: 64,
    score: 52,
    source: 'HN Who is hiring',
  },
];

/** `count` postings as feeds give them, cycling through four real-looking ones. */
export const realisticPostings = (count: number): ChannelPosting[] =>
  Array.from({ length: count }, (_, i) => ({ ...REALISTIC[i % REALISTIC.length], id: `remotive_${(0x3f9c2a71 + i * 7919).toString(16)}` }));

/**
 * A posting with every field past any cap a format shows: a 10,000-character title, a 2,000
 * character URL, long company, place and pay, twelve long reasons. What a card shows of it is cut.
 */
export function longestPosting(i: number): ChannelPosting {
  const long = (n: number, what: string) => `${what} ${i} `.padEnd(n, 'é&<*');
  return {
    id: `longest_${i}`,
    title: long(10_000, 'Title'),
    url: `https://jobs.example.com/${i}/${'p'.repeat(1_990)}`,
    company: long(500, 'Company'),
    place: long(500, 'Place'),
    pay: long(300, 'Pay'),
    reasons: Array.from({ length: 12 }, (_, r) => long(400, `Reason ${r}`)),
    fit: 99,
    score: 100,
    source: long(300, 'Source'),
  };
}

export const alertOf = (postings: ChannelPosting[], more = 0): ChannelContent => ({ type: 'alert', postings, more, links: LINKS });
export const digestOf = (postings: ChannelPosting[], more = 0): ChannelContent => ({
  type: 'digest',
  period: '2026-12-06',
  postings,
  more,
  links: LINKS,
});
export const testOf = (code: string | null): ChannelContent => ({ type: 'test', code, links: LINKS });
