// Module resolution hooks of hold-loading.mjs (they run on Node's hooks thread).
import { existsSync, writeFileSync } from 'node:fs';

let files = {};

export function initialize(data) {
  files = data;
}

export async function resolve(specifier, context, nextResolve) {
  if (files.reached && files.release && /cli\/salsify\.(ts|js)$/.test(specifier) && !existsSync(files.release)) {
    writeFileSync(files.reached, '');
    while (!existsSync(files.release)) await new Promise((done) => setTimeout(done, 10));
  }
  return nextResolve(specifier, context);
}
