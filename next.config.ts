import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The Admin SDK and gRPC stay plain Node modules on the server, never bundled.
  serverExternalPackages: ['firebase-admin', '@google-cloud/firestore'],
  poweredByHeader: false,
  // Tests build into their own folder so they never replace a developer's build.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

export default nextConfig;
