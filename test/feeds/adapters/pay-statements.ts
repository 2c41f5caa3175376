import { readdirSync, readFileSync } from 'node:fs';
import { parseAshbyJobs } from '../../../lib/feeds/adapters/ashby-adapter';
import { parseGreenhouseJobs } from '../../../lib/feeds/adapters/greenhouse-adapter';
import { hnWhoIsHiringAdapter } from '../../../lib/feeds/adapters/hn-whoishiring-adapter';
import { parseLeverPostings } from '../../../lib/feeds/adapters/lever-adapter';
import { remoteOkAdapter } from '../../../lib/feeds/adapters/remoteok-adapter';
import { remotiveAdapter } from '../../../lib/feeds/adapters/remotive-adapter';
import { parseUpworkSearch } from '../../../lib/feeds/adapters/upwork-adapter';
import { parseFeed } from '../../../lib/feeds/parse-feed';
import type { Budget, Posting } from '../../../lib/feeds/posting';
import { json, readOnce } from './read-adapter';

/**
 * What the real answers of every kind (corpus/<kind>, each with its provenance) state of pay, shared
 * by pay-corpus.test.ts and the corpus table. Where a raw answer states
 * pay, in a field or in its text, the posting keeps it. What "states" means is decided here without
 * Scout's parser: a field with a positive amount, or text with money (a currency and a number) in
 * the same sentence as a pay word. Pay Scout reads where this says none is stated is counted too
 * (and each such case was read by hand: see docs/sources.md, "Pay").
 */
const corpus = new URL('./corpus/', import.meta.url);
export const filesOf = (kind: string, ext = '.json') => readdirSync(new URL(`${kind}/`, corpus)).filter((name) => name.endsWith(ext));
export const read = (kind: string, file: string) => readFileSync(new URL(`${kind}/${file}`, corpus), 'utf8').replace(/^\uFEFF/, '');

/** One raw posting: its id, the pay its fields state (exactly), its text (where pay may be written), and whether a free-text pay field holds a figure. */
type Stated = { id: string; fields: Budget | null; text: string; payField?: boolean };
export type Kind = { kind: string; files: string[]; load: (file: string) => Promise<{ stated: Stated[]; postings: Posting[] }> };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', nbsp: ' ', mdash: '—', ndash: '–', '#39': "'" };
/** Markup and entities off, crudely: only to look for money, never to compare with the posting's text. */
function plain(html: string): string {
  let text = html;
  for (let i = 0; i < 2; i++)
    text = text.replace(/&(#\d+|#x[\da-f]+|[a-z]+\d*);/gi, (m, e: string) => ENTITIES[e.toLowerCase()] ?? decodeRef(e) ?? m);
  return text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
}
function decodeRef(entity: string): string | null {
  const code = entity.startsWith('#x') ? parseInt(entity.slice(2), 16) : entity.startsWith('#') ? Number(entity.slice(1)) : NaN;
  return Number.isFinite(code) ? String.fromCodePoint(code) : null;
}

const MONEY =
  /(?:[$€£¥]|\b(?:USD|EUR|GBP|CAD|AUD)\b)\s?\d[\d,.]*\s?(?:[kK]\b|(?:[mM]|[bB]n?|million|billion)\b)?(?:\s?(?:-|–|—|to)\s?[$€£]?\d[\d,.]*\s?[kK]?)?|\d[\d,.]*\s?[kK]?\s?(?:USD|EUR|GBP|CAD|AUD)\b/g;
const PAY_WORD =
  /\b(?:salary|compensation|pay|rate|range|wage|OTE|budget\s?:|hourly|annual|base|earn|stipend)\b|\b(?:a|per|an)\s+(?:year|hour|month|week)\b|\/\s?(?:year|yr|hour|hr|h|month)\b/i;
// Perks and company figures beside money are not what the job pays.
const PERK =
  /^.{0,25}\b(?:allowance|per employee|for compute|in funding|for your co)\b|^.{0,25}\b(?:for|towards)\s+(?:[\w-]+\s+){0,2}(?:education|training|wellness|wellbeing)\b|\b(?:benefit of|funding for|stipend of|stipend:|reimburse up to|budgets between|HRA \(up to)\W{0,3}$/i;
/** Money in the same sentence as a pay word; not a company's millions, not a perk. */
function statesPayInText(text: string): boolean {
  for (const match of text.matchAll(MONEY)) {
    if (/\d\s?(?:[mMbB]|million|billion)\b/.test(match[0])) continue;
    const end = match.index + match[0].length;
    if (PERK.test(text.slice(end, end + 60)) || PERK.test(text.slice(Math.max(0, match.index - 30), match.index))) continue;
    const start = text.lastIndexOf('. ', match.index) + 1;
    const endAt = text.indexOf('. ', end);
    const sentence = text.slice(Math.max(start, match.index - 150), endAt === -1 ? end + 80 : Math.min(endAt, end + 80));
    if (PAY_WORD.test(sentence)) return true;
  }
  return false;
}

const positive = (n: unknown) => (typeof n === 'number' && n > 0 ? n : typeof n === 'string' && Number(n) > 0 ? Number(n) : undefined);
function range(min: unknown, max: unknown, currency: string | null, kind: Budget['kind']): Budget | null {
  const bounds = [positive(min), positive(max)].filter((n): n is number => n !== undefined);
  if (bounds.length === 0) return null;
  const amount = Math.min(...bounds);
  const top = Math.max(...bounds);
  return { amount, currency, kind, ...(top > amount ? { maxAmount: top } : {}) };
}

// Raw answers of many shapes, read field by field.
export type Json = Record<string, any>;

export const KINDS: Kind[] = [
  {
    kind: 'greenhouse',
    files: filesOf('greenhouse'),
    load: async (file) => {
      const text = read('greenhouse', file);
      const jobs = (JSON.parse(text) as { jobs: Json[] }).jobs;
      return {
        stated: jobs.map((job) => ({ id: String(job.id), fields: null, text: plain(`${job.title} ${job.content ?? ''}`) })),
        postings: parseGreenhouseJobs('gh', text, { company: null }),
      };
    },
  },
  {
    kind: 'lever',
    files: filesOf('lever'),
    load: async (file) => {
      const text = read('lever', file);
      const jobs = JSON.parse(text) as Json[];
      const PERIODS: Record<string, Budget['kind']> = {
        'per-year-salary': 'yearly',
        'per-hour-wage': 'hourly',
        'per-month-salary': 'monthly',
      };
      return {
        stated: jobs.map((job) => ({
          id: job.id,
          fields:
            job.salaryRange?.interval in PERIODS
              ? range(job.salaryRange.min, job.salaryRange.max, job.salaryRange.currency, PERIODS[job.salaryRange.interval])
              : null,
          text: plain(
            [
              job.text,
              job.descriptionPlain ?? job.description,
              ...(job.lists ?? []).map((l: Json) => `${l.text} ${l.content}`),
              job.additionalPlain ?? job.additional,
              job.salaryDescriptionPlain,
            ].join(' '),
          ),
        })),
        postings: parseLeverPostings('lv', text, { company: null }),
      };
    },
  },
  {
    kind: 'ashby',
    files: filesOf('ashby'),
    load: async (file) => {
      const text = read('ashby', file);
      const jobs = (JSON.parse(text) as { jobs: Json[] }).jobs.filter((job) => job.isListed !== false);
      return {
        stated: jobs.map((job) => {
          const salary = (job.compensation?.summaryComponents ?? []).find(
            (c: Json) => c.compensationType === 'Salary' && c.interval === '1 YEAR',
          );
          return {
            id: job.id,
            fields: salary ? range(salary.minValue, salary.maxValue, salary.currencyCode, 'yearly') : null,
            text: plain(`${job.title} ${job.descriptionPlain ?? job.descriptionHtml ?? ''}`),
          };
        }),
        postings: parseAshbyJobs('ab', text, { company: null }),
      };
    },
  },
  {
    kind: 'remotive',
    files: filesOf('remotive'),
    load: async (file) => {
      const text = read('remotive', file);
      const jobs = (JSON.parse(text) as { jobs: Json[] }).jobs;
      const answer = await readOnce(remotiveAdapter, { params: {}, served: { '/api/remote-jobs': json(text) }, now: new Date() });
      return {
        // The salary field is free text: stated when it holds a number; its reading is the parser's test.
        stated: jobs.map((job) => ({
          id: String(job.id),
          fields: null,
          text: plain(job.description ?? ''),
          payField: /\d/.test(job.salary ?? ''),
        })),
        postings: answer.status === 'ok' ? answer.postings : [],
      };
    },
  },
  {
    kind: 'remoteok',
    files: filesOf('remoteok'),
    load: async (file) => {
      const text = read('remoteok', file);
      const jobs = (JSON.parse(text) as Json[]).filter((job) => 'id' in job);
      const answer = await readOnce(remoteOkAdapter, { params: {}, served: { '/api': json(text) }, now: new Date() });
      return {
        stated: jobs.map((job) => {
          const top = Math.max(positive(job.salary_min) ?? 0, positive(job.salary_max) ?? 0);
          return {
            id: String(job.id),
            fields: range(job.salary_min, job.salary_max, 'USD', top < 1000 ? 'hourly' : 'yearly'),
            text: plain(job.description ?? ''),
          };
        }),
        postings: answer.status === 'ok' ? answer.postings : [],
      };
    },
  },
  {
    kind: 'hn-whoishiring',
    files: filesOf('hn-whoishiring'),
    load: async (file) => {
      const body = JSON.parse(read('hn-whoishiring', file)) as Json;
      // Both captures were reshaped by their authors: served again as the items answer they came from.
      const comments: Json[] =
        body.children ?? body.hits.map((hit: Json) => ({ id: Number(hit.objectID), text: hit.comment_text, created_at: hit.created_at }));
      const month = /\((\w+ \d{4})\)/.exec(body.title ?? body.story_title)![1];
      const id = body.id ?? body.story_id;
      const search = { hits: [{ objectID: String(id), title: `Ask HN: Who is hiring? (${month})`, created_at_i: 1 }] };
      const now = new Date(`1 ${month} 12:00 UTC`);
      const answer = await readOnce(hnWhoIsHiringAdapter, {
        params: {},
        served: { '/api/v1/search_by_date': json(search), [`/api/v1/items/${id}`]: json({ id: Number(id), children: comments }) },
        now,
        serverNow: now,
      });
      // The first line's fields are pay by their place in the convention, with no pay word beside them.
      const firstLine = (html: string) => plain(html.split(/<p>/i)[0]);
      const statesInFirstLine = (html: string) =>
        /\b\d{2,3}\s?[-–]\s?\d{2,3}\s?[kK]\b/.test(firstLine(html)) || new RegExp(MONEY.source).test(firstLine(html));
      return {
        stated: comments.map((c) => ({ id: String(c.id), fields: null, text: plain(c.text), payField: statesInFirstLine(c.text) })),
        postings: answer.status === 'ok' ? answer.postings : [],
      };
    },
  },
  {
    kind: 'upwork',
    files: filesOf('upwork'),
    load: async (file) => {
      const body = JSON.parse(read('upwork', file)) as Json;
      // The website's own search (userJobSearch), not the documented GraphQL: its fields are mapped to the documented ones.
      const results: Json[] = Array.isArray(body) ? body : body.data.search.universalSearchNuxt.userJobSearchV1.results;
      const money = (value: string | null | undefined, currency?: string | null) =>
        value ? { rawValue: value, currency: currency ?? null } : null;
      const edges = results.map((r) => {
        const job = r.jobTile.job;
        return {
          node: {
            id: r.id,
            title: r.title,
            description: r.description,
            ciphertext: job.ciphertext,
            publishedDateTime: job.publishTime,
            amount: money(job.fixedPriceAmount?.amount, job.fixedPriceAmount?.isoCurrencyCode),
            hourlyBudgetMin: money(job.hourlyBudgetMin),
            hourlyBudgetMax: money(job.hourlyBudgetMax),
          },
        };
      });
      return {
        stated: results.map((r) => {
          const job = r.jobTile.job;
          const hourly = job.jobType === 'HOURLY' ? range(job.hourlyBudgetMin, job.hourlyBudgetMax, 'USD', 'hourly') : null;
          const fixed = job.jobType === 'FIXED' ? range(job.fixedPriceAmount?.amount, null, 'USD', 'fixed') : null;
          return { id: r.id, fields: hourly ?? fixed, text: plain(`${r.title} ${r.description}`) };
        }),
        postings: parseUpworkSearch('up', JSON.stringify({ data: { marketplaceJobPostingsSearch: { edges } } })),
      };
    },
  },
  {
    kind: 'feed',
    files: filesOf('feed', '.xml'),
    load: async (file) => {
      const body = read('feed', file);
      // Each feed read as from its own address (its self link, else its home link): whether a board is remote-only is the adapter's to say.
      const self = /<(?:atom:)?link\s[^>]*rel="self"[^>]*href="([^"]+)"/.exec(body)?.[1];
      const postings = parseFeed(body, {
        source: 'feed',
        baseUrl: self ?? /<link>([^<]+)<\/link>/.exec(body)?.[1] ?? 'https://feed.invalid/',
      });
      const items = [...body.matchAll(/<item[\s>]([\s\S]*?)<\/item>/g)].map((m) => m[1]);
      // An element with or without attributes (`<guid isPermaLink="false">`), its CDATA unwrapped.
      const field = (item: string, tag: string) =>
        new RegExp(`<(\\w+:)?${tag}(?:\\s[^>]*)?>(?:<!\\[CDATA\\[)?([\\s\\S]*?)(?:\\]\\]>)?</(\\w+:)?${tag}>`).exec(item)?.[2] ?? '';
      return {
        stated: items.map((item) => ({
          // The id as the feed means it: WordPress writes "&" in its guids as "&#038;".
          id: plain(field(item, 'guid')).trim(),
          fields: null,
          // The full text where the feed gives one (`content:encoded`), as the adapter reads it.
          text: plain(`${field(item, 'title')} ${field(item, 'encoded') || field(item, 'description')}`),
        })),
        postings,
      };
    },
  },
];

export type Tally = {
  files: number;
  postings: number;
  stated: number;
  kept: number;
  fromFields: number;
  fromText: number;
  unstatedRead: number;
  missed: string[];
  extra: string[];
};

export async function payTally(kind: Kind): Promise<Tally> {
  const t: Tally = { files: 0, postings: 0, stated: 0, kept: 0, fromFields: 0, fromText: 0, unstatedRead: 0, missed: [], extra: [] };
  for (const file of kind.files) {
    const { stated, postings } = await kind.load(file);
    const byGuid = new Map(postings.map((p) => [p.guid, p]));
    t.files++;
    for (const raw of stated) {
      const posting = byGuid.get(raw.id);
      if (!posting) continue;
      t.postings++;
      const inText = raw.payField || statesPayInText(raw.text);
      if (raw.fields) {
        t.stated++;
        t.fromFields++;
        if (posting.budget && sameBudget(posting.budget, raw.fields)) t.kept++;
        else t.missed.push(`${file} ${raw.id}: fields ${JSON.stringify(raw.fields)} → ${JSON.stringify(posting.budget)}`);
      } else if (inText) {
        t.stated++;
        t.fromText++;
        if (posting.budget) t.kept++;
        if (posting.budget && process.env.SCOUT_PAY_CORPUS_DETAIL)
          t.extra.push(`KEPT ${file} ${raw.id}: ${JSON.stringify(posting.budget)}${detail(raw.text)}`);
        else t.missed.push(`${file} ${raw.id}: text → none${detail(raw.text)}`);
      } else if (posting.budget) {
        t.unstatedRead++;
        t.extra.push(`${file} ${raw.id}: ${JSON.stringify(posting.budget)}${detail(raw.text)}`);
      }
    }
  }
  return t;
}

const detail = (text: string) =>
  process.env.SCOUT_PAY_CORPUS_DETAIL
    ? [...text.matchAll(/(?:[$€£¥]|\b[A-Z]{3}\b)\s?\d[\d,.]*/g)]
        .map((m) => `\n    …${text.slice(Math.max(0, m.index - 90), m.index + 60)}…`)
        .join('')
    : '';

const sameBudget = (a: Budget, b: Budget) =>
  a.amount === b.amount && (a.maxAmount ?? a.amount) === (b.maxAmount ?? b.amount) && a.currency === b.currency && a.kind === b.kind;
