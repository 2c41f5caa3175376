import { NextResponse, type NextRequest } from 'next/server';
import { newNonce, securityHeaders } from './lib/http/security-headers';

/**
 * Every request: security headers on the response, and the page's script nonce on the request,
 * where Next reads it to stamp its own scripts. The one place they are set (issue 12).
 */
export function proxy(request: NextRequest) {
  const headers = securityHeaders({ nonce: newNonce(), https: request.nextUrl.protocol === 'https:' });
  const forwarded = new Headers(request.headers);
  forwarded.set('content-security-policy', headers['content-security-policy']);
  const response = NextResponse.next({ request: { headers: forwarded } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Static build assets are files, not pages; everything else (pages, 404s, API routes) gets the headers.
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
