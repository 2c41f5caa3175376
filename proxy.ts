import { NextResponse, type NextRequest } from 'next/server';
import { securityHeaders } from './lib/http/security-headers';

/** Every request: the security headers on the response, set in one place. */
export function proxy(request: NextRequest) {
  const headers = securityHeaders({ https: request.nextUrl.protocol === 'https:' });
  const response = hasPrototypeKey(request.nextUrl.searchParams)
    ? NextResponse.json({ error: 'invalid query', fields: { query: 'unknown parameter(s): __proto__' } }, { status: 400 })
    : NextResponse.next();
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/**
 * Next parses a query into a plain object, where a `__proto__` key vanishes, and hands the route a
 * URL rebuilt without it: `?__proto__=x` would pass any strict check there. Here the URL is still
 * the one the client sent (skipProxyUrlNormalize), so it is refused before any route runs.
 */
const hasPrototypeKey = (params: URLSearchParams) => [...params.keys()].includes('__proto__');

export const config = {
  // Static build assets are files, not pages; everything else (pages, 404s, API routes) gets the headers.
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
