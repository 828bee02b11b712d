#!/usr/bin/env node
// Compiles src/ (TypeScript) to dist/ (JavaScript, tsconfig.build.json) unless dist/ is already
// current, so that bin/ starts without compiling TypeScript. Run by `npm install` (after the
// native addon), `npm test`, `npm run demo` and `npm run build`; `--force` rebuilds anyway.
// linkshell is also bundled into one file (scripts/bundle-entries.mjs: it starts faster).
// The new tree is compiled beside dist/ and swapped in whole, so a file deleted or moved in src/
// leaves nothing behind and a failed build leaves the previous dist/ in place.
import { spawn } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState, DIST, sourceFingerprint, STAMP } from './build-state.mjs';
import { BUNDLED_ENTRIES, bundleEntries } from './bundle-entries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const force = process.argv.includes('--force');
const state = buildState(root);
if (state.current && !force) process.exit(0);

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  fail('the TypeScript compiler is not installed (package "typescript"); run: npm install');
}

const started = process.hrtime.bigint();
// Taken before compiling: a source edited during the build makes the result stale, not falsely current.
const fingerprint = sourceFingerprint(root);
const staging = join(root, `.dist-staging-${process.pid}`);
const retired = join(root, `.dist-retired-${process.pid}`);
// The compiler runs as a child that ends with this build: a SIGTERM or SIGINT (a test's time bound, a
// Ctrl-C) ends it and removes the half-written staging tree, instead of leaving it writing there.
// The handlers are installed before the compiler starts: a signal that came while spawn() was still
// waiting for the child's exec found none, and the default action ended the build, leaving the compiler.
let compiler;
const stop = (signal) => {
  const finish = () => {
    rmSync(staging, { recursive: true, force: true });
    console.error(`build: stopped by ${signal}; dist/ is unchanged`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  if (compiler === undefined || compiler.exitCode !== null || compiler.signalCode !== null) return finish();
  compiler.kill('SIGKILL');
  compiler.once('close', finish);
};
process.once('SIGTERM', stop).once('SIGINT', stop);
compiler = spawn(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', staging], { cwd: root, stdio: 'inherit' });
const compiled = await new Promise((resolve) => compiler.once('close', (code) => resolve(code === 0)));
process.off('SIGTERM', stop).off('SIGINT', stop);
if (!compiled) {
  rmSync(staging, { recursive: true, force: true });
  fail('compiling src/ to dist/ failed (see the compiler output above); dist/ is unchanged');
}
try {
  await bundleEntries(staging);
} catch (error) {
  rmSync(staging, { recursive: true, force: true });
  fail(`bundling ${BUNDLED_ENTRIES.join(', ')} failed: ${error.message}; dist/ is unchanged`);
}
writeFileSync(join(staging, STAMP), fingerprint + '\n');
const dist = join(root, DIST);
// Swap: retire the old tree, move the new one in. Another build finishing at the same moment can
// put a dist/ back in between; then retire that one too and try again.
for (let attempt = 1; ; attempt++) {
  try {
    renameSync(dist, retired);
  } catch (error) {
    if (error.code !== 'ENOENT') fail(`cannot move the old dist/ aside: ${error.message}`);
  }
  rmSync(retired, { recursive: true, force: true });
  try {
    renameSync(staging, dist);
    break;
  } catch (error) {
    if (!['ENOTEMPTY', 'EEXIST'].includes(error.code) || attempt === 3) {
      rmSync(staging, { recursive: true, force: true });
      fail(`cannot move the new build into dist/: ${error.message}`);
    }
  }
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(`build: compiled src/ to dist/ in ${seconds.toFixed(1)} s${state.current ? '' : ` (${state.reason})`}`);
