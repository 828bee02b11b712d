// Whether dist/ (the JavaScript that bin/ runs, compiled from src/ by scripts/build.mjs) is current:
// a fingerprint of every file and folder under src/ and of the tsconfig files (path, size,
// modification time) is written into dist/ by the build and compared here. Adding, removing,
// moving, editing or checking out a source file changes it. Costs a few milliseconds (stat calls only).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const DIST = 'dist';
export const STAMP = '.source-fingerprint';
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

/** The fingerprint of the sources the build compiles, as a hex string. */
export function sourceFingerprint(root) {
  const hash = createHash('sha256');
  const add = (rel) => {
    const s = statSync(join(root, rel));
    hash.update(`${rel}\0${s.isDirectory() ? 'd' : s.size}\0${s.mtimeMs}\n`);
    return s;
  };
  const walk = (rel) => {
    if (!add(rel).isDirectory()) return;
    for (const name of readdirSync(join(root, rel)).sort()) walk(`${rel}/${name}`);
  };
  walk('src');
  for (const config of CONFIGS) add(config);
  return hash.digest('hex');
}

/**
 * { current: true } or { current: false, reason } (reason completes "dist/ ..."). An installed
 * package ships dist/ without src/ (built by `prepack`): its dist/ is current by definition.
 */
export function buildState(root) {
  let recorded;
  try {
    recorded = readFileSync(join(root, DIST, STAMP), 'utf8').trim();
  } catch {
    return { current: false, reason: 'dist/ has not been built' };
  }
  if (!existsSync(join(root, 'src'))) return { current: true };
  let now;
  try {
    now = sourceFingerprint(root);
  } catch (error) {
    return { current: false, reason: `dist/ cannot be checked against src/: ${error.message}` };
  }
  return recorded === now ? { current: true } : { current: false, reason: 'dist/ is older than src/, which changed since the last build' };
}
