import type { Sighting } from './postings-collection';
import { deriveSource } from './feed-source';
import type { ConfiguredSource } from './source-adapter';
import { hostName } from './source-name';
import { SOURCE_ADAPTERS } from './source-kinds';

/**
 * The sources this deployment reads, as a visitor knows them, in the order configured and each
 * name once: the name its postings' cards carry when Scout has read it lately (a feed's own title,
 * "We Work Remotely"), else the board's own name ("Upwork", "Remote OK", "Hacker News · Who is
 * hiring?", "Greenhouse · acme"), else a feed's site ("weworkremotely.com") or the name the operator
 * gave it. A feed known only by a bare IP address and a derived id names nothing a visitor knows
 * and is left out.
 */
export function sourceNamesForVisitors(
  sources: readonly ConfiguredSource[],
  seen: readonly Pick<Sighting, 'source' | 'label'>[] = [],
): string[] {
  const seenNames = new Map(seen.map((sighting) => [sighting.source, sighting.label]));
  const names = sources.map((source) => seenNames.get(source.id) ?? configuredName(source));
  return [...new Set(names.filter((name): name is string => Boolean(name)))];
}

function configuredName(source: ConfiguredSource): string | null {
  const adapter = SOURCE_ADAPTERS[source.kind];
  if (!adapter) return null;
  if (source.kind !== 'feed') return adapter.siteName?.(source) ?? adapter.label(source);
  const url = typeof source.params.url === 'string' ? source.params.url : null;
  const host = hostName(url);
  if (host) return host;
  const derived = url !== null && URL.canParse(url) && source.id === deriveSource(new URL(url));
  return derived ? null : source.id;
}
