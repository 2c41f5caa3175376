import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The cron endpoint's guard. The secret may come as `Authorization: Bearer` (Vercel Cron, GitHub
 * Actions, curl) or `x-cron-secret` (cron-job.org, n8n); as `?key=` only when explicitly allowed,
 * since query strings end up in access logs. Compared as SHA-256 digests in constant time, so
 * neither the content nor the length of the secret leaks through timing.
 */
export function isAuthorizedCron(request: Request, input: { secret: string; allowQuerySecret: boolean }): boolean {
  const offered: string[] = [];
  const authorization = request.headers.get('authorization');
  if (authorization?.startsWith('Bearer ')) offered.push(authorization.slice('Bearer '.length).trim());
  const header = request.headers.get('x-cron-secret');
  if (header) offered.push(header.trim());
  if (input.allowQuerySecret) {
    const key = new URL(request.url).searchParams.get('key');
    if (key) offered.push(key);
  }
  const expected = digest(input.secret);
  // Check every offered value, so the time taken does not depend on which one matched.
  return offered.map((value) => timingSafeEqual(digest(value), expected)).reduce((a, b) => a || b, false);
}

const digest = (value: string) => createHash('sha256').update(value).digest();
