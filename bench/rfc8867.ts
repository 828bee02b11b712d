// The whole RFC 8867 suite for gcc, gcc-draft02, aimd and salsify-1 in the simulator: the
// table of every case, the suite's wall time, and the plot of case 5.1 for
// each controller written to docs/rfc8867-5.1-CONTROLLER.svg. Cases whose
// cross traffic is not available (5.6, 5.6b, 5.7 without src/tcp) are listed
// as skipped, with the reason.
// Usage: nice -n 19 node --import tsx bench/rfc8867.ts [OUT_DIR]   (OUT_DIR: every case's JSON, plot, logs)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CASE_IDS, rfc8867Case } from '../src/cc/rfc8867/cases.ts';
import { resolveController } from '../src/cc/rfc8867/resolve-controller.ts';
import { runResolved, type CaseResult } from '../src/cc/rfc8867/run-case.ts';
import { casePlotSpec, formatSuiteTable, writeSuite } from '../src/cc/rfc8867/report.ts';
import { renderSvg } from '../src/plots/render.ts';

const outDir = process.argv[2];
const controllers = ['gcc', 'gcc-draft02', 'aimd', 'salsify-1'];
const results: CaseResult[] = [];
const skipped: string[] = [];
const started = performance.now();
for (const name of controllers) {
  const controller = await resolveController(name);
  const t0 = performance.now();
  try {
    for (const id of CASE_IDS) {
      try {
        results.push(await runResolved(rfc8867Case(id), controller.factory, { seed: 1, logs: outDir !== undefined }));
      } catch (error) {
        skipped.push(`${id} ${name}: ${(error as Error).message}`);
      }
    }
  } finally {
    await controller.close();
  }
  console.log(`${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
const wallS = (performance.now() - started) / 1000;
console.log(formatSuiteTable(results));
for (const s of skipped) console.log(`skipped ${s}`);
console.log(`whole suite: ${results.length} case runs in ${wallS.toFixed(1)} s of wall time`);
for (const r of results.filter((x) => x.caseId === '5.1')) {
  const path = fileURLToPath(new URL(`../docs/rfc8867-5.1-${r.controller}.svg`, import.meta.url));
  writeFileSync(path, await renderSvg(casePlotSpec(r)));
  console.log(`wrote ${path}`);
}
if (outDir !== undefined) await writeSuite(outDir, results);
