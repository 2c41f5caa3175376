/** Builds small RSS 2.0 feeds for tests. Values are inserted raw on purpose, so tests can send hostile markup. */
export type TestItem = { guid?: string; title: string; link?: string; description?: string; pubDate?: string; categories?: string[] };

/** `title`: the feed's own name (a card's "Seen on" reads it); "Test board" unless given. */
export function rssFeed(items: TestItem[], options: { title?: string } = {}): string {
  const body = items
    .map(
      (item) => `    <item>
      <title>${item.title}</title>
      ${item.link ? `<link>${item.link}</link>` : ''}
      <description><![CDATA[${item.description ?? ''}]]></description>
      ${item.pubDate ? `<pubDate>${item.pubDate}</pubDate>` : ''}
      ${item.guid ? `<guid isPermaLink="false">${item.guid}</guid>` : ''}
      ${(item.categories ?? []).map((c) => `<category>${c}</category>`).join('')}
    </item>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>${options.title ?? 'Test board'}</title><link>https://jobs.example.com/</link><description>test</description>
${body}
</channel></rss>`;
}

/** n postings that all mention `keyword`, published just before `at`. */
export function postingsAbout(
  keyword: string,
  n: number,
  options: { at: Date; prefix?: string; budget?: number } = { at: new Date() },
): TestItem[] {
  return Array.from({ length: n }, (_, i) => ({
    guid: `${options.prefix ?? keyword}-${i}`,
    title: `${keyword} engineer wanted #${i + 1} (${options.prefix ?? 'batch'})`,
    link: `https://jobs.example.com/jobs/${encodeURIComponent(options.prefix ?? keyword)}-${i}`,
    description: `<p>Work on a ${keyword} codebase.</p><b>Budget</b>: $${(options.budget ?? 1000) + i * 100}`,
    pubDate: new Date(options.at.getTime() - (i + 1) * 60_000).toUTCString(),
    categories: [keyword],
  }));
}
