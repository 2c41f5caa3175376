import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The Admin SDK and gRPC stay plain Node modules on the server, never bundled; so does undici,
  // whose fetch and agents keep feeds off private addresses (one copy, loaded as Node loads it).
  serverExternalPackages: ['firebase-admin', '@google-cloud/firestore', 'undici'],
  poweredByHeader: false,
  // proxy.ts sees the URL the client sent, before Next's query parsing drops `__proto__` from it.
  skipProxyUrlNormalize: true,
  // Tests build into their own folder so they never replace a developer's build.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

export default nextConfig;
