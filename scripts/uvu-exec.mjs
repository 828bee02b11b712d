// Loads the given test files into one uvu run (called by run-tests.mjs under tsx).
import { pathToFileURL } from 'node:url';

globalThis.UVU_DEFER = 1;
const uvu = await import('uvu');
let index = 0;
for (const file of process.argv.slice(2)) {
  globalThis.UVU_INDEX = index++;
  globalThis.UVU_QUEUE.push([file]);
  await import(pathToFileURL(file).href);
}
await uvu.exec(false);
