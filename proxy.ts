import { NextResponse, type NextRequest } from 'next/server';
import { newNonce, securityHeaders } from './lib/http/security-headers';

/**
 * Every request: security headers on the response, and the page's script nonce on the request,
 * where Next reads it to stamp its own scripts. The one place they are set.
 */
export function proxy(request: NextRequest) {
  const headers = securityHeaders({ nonce: newNonce(), https: request.nextUrl.protocol === 'https:' });
  const response = hasPrototypeKey(request.nextUrl.searchParams)
    ? NextResponse.json({ error: 'invalid query', fields: { query: 'unknown parameter(s): __proto__' } }, { status: 400 })
    : forward(request, headers['content-security-policy']);
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

function forward(request: NextRequest, policy: string) {
  const forwarded = new Headers(request.headers);
  forwarded.set('content-security-policy', policy);
  return NextResponse.next({ request: { headers: forwarded } });
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
