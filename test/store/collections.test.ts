import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COLLECTIONS } from '../../lib/store/collections';

describe('COLLECTIONS', () => {
  it('keeps the names of the data model: stores, TTL policies and indexes already use them', () => {
    // Spelled raw on purpose: this is the contract (docs/cycle.md "Data model", docs/design.md §4).
    expect(COLLECTIONS).toEqual({
      subscribers: 'users',
      matchIndex: 'matchIndex',
      postings: 'jobs',
      postingKeys: 'postingKeys',
      deliveries: 'deliveries',
      emails: 'emails',
      messages: 'messages',
      runs: 'runs',
      feedStates: 'feeds',
      locks: 'locks',
      cursors: 'cursors',
      rateLimits: 'rateLimits',
      adminSessions: 'adminSessions',
      matches: 'matches',
      aiUsage: 'aiUsage',
      nearMisses: 'nearMisses',
      feedback: 'feedback',
      sourceTokens: 'sourceTokens',
      schema: 'schema',
    });
  });

  it('names every collection in the data model table (docs/cycle.md), and no other', () => {
    const readme = readFileSync(new URL('../../docs/cycle.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Data model'), readme.indexOf('\n## ', readme.indexOf('## Data model') + 1));
    const documented = [...section.matchAll(/^\| `(\w+)`/gm)].map((m) => m[1]);
    expect([...documented].sort()).toEqual(Object.values(COLLECTIONS).sort());
  });
});
