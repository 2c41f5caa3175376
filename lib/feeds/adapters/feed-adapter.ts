import { z } from 'zod';
import { FEED_ACCEPT } from '../fetch-feed';
import { deriveSource } from '../feed-source';
import { readFeed } from '../parse-feed';
import type { SourceAdapter } from '../source-adapter';
import { feedSourceName, hostName } from '../source-name';

export const feedParams = z.object({ url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }) }).strict();

/** RSS 2.0, Atom, RDF and JSON Feed: one conditional GET, any format feedsmith recognises. */
export const feedAdapter: SourceAdapter<z.output<typeof feedParams>> = {
  kind: 'feed',
  documentation:
    'RSS 2.0 (https://www.rssboard.org/rss-specification), Atom (RFC 4287), JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/)',
  params: feedParams,
  redirects: 'any-public-host',
  minIntervalMinutes: 0,
  label: (source) => hostName(source.params.url) ?? new URL(source.params.url).hostname,
  async read({ source, http, validators }) {
    const answer = await http.request(source.params.url, {
      headers: { accept: FEED_ACCEPT },
      etag: validators?.etag,
      lastModified: validators?.lastModified,
    });
    if (answer.status === 'not-modified') return answer;
    const feed = readFeed(answer.text, { source: source.id, baseUrl: answer.url });
    return {
      status: 'ok',
      postings: feed.postings,
      validators: { etag: answer.etag, lastModified: answer.lastModified },
      siteName: feedSourceName({
        feedTitle: feed.title,
        url: source.params.url,
        sourceId: source.id,
        derivedId: source.id === deriveSource(new URL(source.params.url)),
      }),
    };
  },
};
