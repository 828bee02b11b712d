// Loads a command's entry module for bin/*.js: the JavaScript compiled from it in dist/ when dist/
// is current (no TypeScript is compiled at start; the command's one-file bundle where the build
// made one), otherwise, saying so on stderr, the TypeScript source itself through tsx's loader
// (correct, but slower to start). `npm run build` updates dist/; `npm install`, `npm test` and
// `npm run demo` do it too.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildState } from '../scripts/build-state.mjs';
import { BUNDLE_DIR } from '../scripts/bundle-entries.mjs';

const root = new URL('..', import.meta.url);

/** `entry` is the entry module's path under src/, e.g. "cli/linkshell.ts"; `command` names the command in the notice. */
export async function loadEntry(command, entry) {
  const state = buildState(fileURLToPath(root));
  if (state.current) {
    // The command's one-file bundle where the build made one (scripts/bundle-entries.mjs), else its module tree.
    const compiled = entry.replace(/\.ts$/, '.js');
    const bundle = new URL(`dist/${BUNDLE_DIR}/${compiled.split('/').pop()}`, root);
    return import((existsSync(bundle) ? bundle : new URL(`dist/${compiled}`, root)).href);
  }
  process.stderr.write(`${command}: ${state.reason}; running the TypeScript sources through tsx (slower start); run \`npm run build\`\n`);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL(`src/${entry}`, root).href);
}
