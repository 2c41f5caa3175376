import { describe, expect, it } from 'vitest';
import { isNotModified, validatorHeaders } from '../../lib/http/conditional-get';

const validators = { etag: 'W/"abc"', lastModified: new Date('2026-11-30T08:00:00.750Z') };
const ask = (headers: Record<string, string>) => isNotModified(new Headers(headers), validators);

describe('isNotModified', () => {
  it.each([
    [{}, false],
    [{ 'if-none-match': 'W/"abc"' }, true],
    [{ 'if-none-match': '"abc"' }, true], // weak comparison
    [{ 'if-none-match': '"old", W/"abc"' }, true],
    [{ 'if-none-match': '*' }, true],
    [{ 'if-none-match': 'W/"old"' }, false],
    // If-None-Match decides alone: a current date does not save a stale tag.
    [{ 'if-none-match': 'W/"old"', 'if-modified-since': 'Mon, 30 Nov 2026 09:00:00 GMT' }, false],
    [{ 'if-modified-since': 'Mon, 30 Nov 2026 08:00:00 GMT' }, true], // HTTP dates are to the second
    [{ 'if-modified-since': 'Mon, 30 Nov 2026 09:00:00 GMT' }, true],
    [{ 'if-modified-since': 'Mon, 30 Nov 2026 07:59:59 GMT' }, false],
    [{ 'if-modified-since': 'not a date' }, false],
  ])('%j → %s', (headers, expected) => expect(ask(headers)).toBe(expected));

  it('gives the validators as headers, Last-Modified as an HTTP date', () => {
    expect(validatorHeaders(validators)).toEqual({ etag: 'W/"abc"', 'last-modified': 'Mon, 30 Nov 2026 08:00:00 GMT' });
  });
});
