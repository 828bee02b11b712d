// One-file bundles of the commands whose start-up time is measured against another tool's
// (`linkshell`: `linkshell --netns -- true` against mm-link, docs/performance.md): the build
// (scripts/build.mjs) writes them beside the compiled tree, in dist/bundle/, and bin/load-entry.js
// runs a command's bundle when there is one. Node loads an ES module graph file by file (resolve,
// stat, read, compile each); linkshell's is about 55 files, and one file with its dynamically
// imported parts as chunks loads in about half the time. Bundled by esbuild (a dependency of tsx
// already; a well-kept bundler, nothing of ours to maintain); npm packages stay outside the bundle
// and are resolved from node_modules as before.
//
// A module that finds a file relative to itself (`new URL('../../native-tun/...', import.meta.url)`)
// finds it from the bundle's folder instead of its own. dist/bundle/ is as deep as dist/<folder>/,
// so those paths hold for modules one folder deep in src/; a deeper module that uses import.meta
// would find the wrong file, and the build fails naming it rather than write such a bundle.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The bundled commands: their entry modules, as compiled under dist/. */
export const BUNDLED_ENTRIES = ['cli/linkshell.js'];
export const BUNDLE_DIR = 'bundle';

/** Bundles each of BUNDLED_ENTRIES of the compiled tree `tree` into `tree`/bundle/; throws an Error saying why it cannot. */
export async function bundleEntries(tree) {
  let esbuild;
  try {
    esbuild = createRequire(import.meta.url)('esbuild');
  } catch {
    throw new Error('the bundler is not installed (package "esbuild"); run: npm install');
  }
  const result = await esbuild.build({
    absWorkingDir: tree,
    entryPoints: BUNDLED_ENTRIES,
    outdir: join(tree, BUNDLE_DIR),
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  for (const path of Object.keys(result.metafile.inputs)) {
    if (path.split('/').length !== 2 && readFileSync(join(tree, path), 'utf8').includes('import.meta')) {
      throw new Error(`${path} uses import.meta and is not one folder deep: its relative paths would not hold in ${BUNDLE_DIR}/; keep it out of ${BUNDLED_ENTRIES.join(', ')}'s graph or stop bundling`);
    }
  }
}
