import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The Admin SDK and gRPC stay plain Node modules on the server, never bundled.
  serverExternalPackages: ['firebase-admin', '@google-cloud/firestore'],
  poweredByHeader: false,
};

export default nextConfig;
