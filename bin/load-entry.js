// Loads a command's entry module for bin/*.js: the JavaScript compiled from it in dist/ when dist/
// is current (no TypeScript is compiled at start), otherwise, saying so on stderr, the TypeScript
// source itself through tsx's loader (correct, but slower to start). `npm run build` updates dist/;
// `npm install`, `npm test` and `npm run demo` do it too.
import { fileURLToPath } from 'node:url';
import { buildState } from '../scripts/build-state.mjs';

const root = new URL('..', import.meta.url);

/** `entry` is the entry module's path under src/, e.g. "cli/linkshell.ts"; `command` names the command in the notice. */
export async function loadEntry(command, entry) {
  const state = buildState(fileURLToPath(root));
  if (state.current) return import(new URL(`dist/${entry.replace(/\.ts$/, '.js')}`, root).href);
  process.stderr.write(`${command}: ${state.reason}; running the TypeScript sources through tsx (slower start); run \`npm run build\`\n`);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL(`src/${entry}`, root).href);
}
