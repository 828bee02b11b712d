// Salsify in the simulator over the AT&T LTE traces (video on the downlink,
// acknowledgements on the uplink, drop-tail queue of 256 packets), the paper's
// main scenario: our figures next to the published ones, and the wall time of
// each run. Two traces: ATT-LTE-driving (the one the results file names; from
// 20 s to 30 s it delivers one packet a second, an outage that dominates any
// scheme's delay figures over the first 60 s) and ATT-LTE-driving-2016.
//
//   node --import tsx bench/salsify-sim.ts [SECONDS] [CODEC] [VIDEO]
//       SECONDS  of video (default 60)
//       CODEC    model (default) or vp8
//       VIDEO    synthetic (default, 1280x720 at 60 fps) or a .y4m / .ivf clip
//
// Ratios, against baselines measured in the same process:
// - "x real time": wall time / seconds of video (below 1: faster than real time);
// - "x video only": wall time / the time to produce every captured frame of the
//   video source alone (the part of the run that is not Salsify's).
import { readFileSync } from 'node:fs';
import { openCodec, openVideo } from '../src/salsify/open-inputs.ts';
import { runSalsifySim, type SalsifySimResult } from '../src/salsify/sim-runner.ts';
import type { Scheme } from '../src/salsify/sender.ts';

const seconds = Number(process.argv[2] ?? 60);
if (!(seconds > 0)) throw new Error(`SECONDS must be > 0, got ${process.argv[2]}`);
const codecName = (process.argv[3] ?? 'model') as 'model' | 'vp8';
if (codecName !== 'model' && codecName !== 'vp8') throw new Error(`CODEC must be model or vp8, got ${process.argv[3]}`);
const video = process.argv[4] ?? 'synthetic';
const TRACES = ['ATT-LTE-driving', 'ATT-LTE-driving-2016'];

// Baseline: produce every captured frame of the source once.
const codec = await openCodec(codecName);
const source = await openVideo(video);
const frames = Math.round(seconds * source.fps);
let t = performance.now();
for (let i = 0; i < frames; i++) await source.frame(i);
const videoOnlyMs = performance.now() - t;
await source.close();
await codec.close();

const runs: { trace: string; scheme: Scheme; result: SalsifySimResult; wallMs: number }[] = [];
for (const trace of TRACES) {
  for (const scheme of ['salsify-1', 'conventional-1s'] as const) {
    t = performance.now();
    const result = await runSalsifySim({
      scheme, downlink: `../shared/traces/${trace}.down`, uplink: `../shared/traces/${trace}.up`, durationS: seconds, codec: codecName, video,
    });
    runs.push({ trace, scheme, result, wallMs: performance.now() - t });
  }
}

// The published figures for this trace.
const paper = new Map<string, string[]>();
const csv = readFileSync('../shared/reference/salsify-paper-results.csv', 'utf8').trim().split('\n');
const header = csv[0].split(',');
for (const line of csv.slice(1)) {
  const cells = line.split(',');
  if (cells[0] === 'att-lte') paper.set(cells[2], cells);
}
const col = (row: string[] | undefined, name: string) => (row ? Number(row[header.indexOf(name)]).toFixed(1) : '-');
const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');

console.log(`${seconds} s of ${video} video, ${codecName} codec, drop-tail 256 packets`);
console.log(`baseline: producing the ${frames} source frames alone took ${f(videoOnlyMs / 1000, 2)} s`);
console.log('| trace | system | delay mean | p5 | p95 (ms) | SSIM mean | p5 | p95 (dB) | shown | skipped | link use | wall (s) | x real time | x video only |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const { trace, scheme, result, wallMs } of runs) {
  const s = result.summary;
  console.log(`| ${trace} | ${scheme} (this) | ${f(s.signalDelayMs.mean)} | ${f(s.signalDelayMs.p5)} | ${f(s.signalDelayMs.p95)} | ${f(s.ssimDb.mean, 2)} | ${f(s.ssimDb.p5, 2)} | ${f(s.ssimDb.p95, 2)} | ${s.framesShown} | ${s.framesSkipped} | ${f(100 * s.linkUtilization)} % | ${f(wallMs / 1000, 2)} | ${f(wallMs / 1000 / seconds, 2)} | ${f(wallMs / videoOnlyMs, 2)} |`);
}
for (const name of ['Salsify-1', 'Salsify-2']) {
  const row = paper.get(name);
  console.log(`| ATT-LTE-driving | ${name} (paper) | ${col(row, 'signal_delay_mean_ms')} | ${col(row, 'signal_delay_p5_ms')} | ${col(row, 'signal_delay_p95_ms')} | ${col(row, 'ssim_mean_db')} | ${col(row, 'ssim_p5_db')} | ${col(row, 'ssim_p95_db')} | | | | | | |`);
}
console.log('(the paper has no conventional-codec row for this trace; its Verizon LTE row: 788.7 / 72.5 / 4292.9 ms, 12.22 dB)');
