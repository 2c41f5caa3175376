import { describe, expect, it } from 'vitest';
import { parseCronQuery } from '../../lib/cron/cron-query';

const parse = (query: string) => parseCronQuery(`http://localhost/api/cron?${query}`);

describe('the cron query is parsed into a map with no prototype', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    '?%s=x is an unknown parameter, not a silent pass',
    (name) => {
      expect(parse(`${name}=x`)).toEqual({ ok: false, errors: { query: `unknown parameter(s): ${name}` } });
    },
  );

  it('?__proto__ beside real parameters still fails the whole query', () => {
    expect(parse('dryRun=1&__proto__=x')).toEqual({ ok: false, errors: { query: 'unknown parameter(s): __proto__' } });
  });

  it('a parameter given twice is refused by name', () => {
    expect(parse('dryRun=1&dryRun=0')).toEqual({ ok: false, errors: { dryRun: 'given more than once' } });
  });

  it('known parameters still parse', () => {
    expect(parse('dryRun=1&shard=0&shards=2')).toMatchObject({ ok: true, query: { dryRun: true, shard: { index: 0, count: 2 } } });
  });
});
