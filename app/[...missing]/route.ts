import { notFoundResponse } from '../../lib/http/not-found-page';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Any path no route answers: Scout's own 404 page, in the shell every page shares, whatever the method. */
const notFound = async (request: Request) => {
  await request.body?.cancel().catch(() => undefined);
  return notFoundResponse();
};

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
