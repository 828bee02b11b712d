// The cost of a model-codec sweep run: salsify-1 on ATT-LTE-driving (drop-tail
// 256 packets, synthetic 1280x720 video at 60 fps), by default 640 s of video
// (the paper's length), wall and CPU time (process.cpuUsage: user + system of
// the whole process). Two baselines measured in the same command, so that the
// ratios mean something on a noisy machine:
// - "rendered": the same run for the first BASELINE_S seconds with every frame
//   rendered in full before the codec sees it (the old path's main cost: the
//   codec used to sample rendered frames; the other, smaller savings, in the
//   model's filler and the CRC, are in both runs), CPU per second of video;
// - "render only": rendering the same number of frames and nothing else.
//
//   node --import tsx bench/model-codec-speed.ts [--seconds 640] [--baseline-seconds 20] [--trace ../shared/traces/ATT-LTE-driving]
//
// Prints the summary of the main run too, so that two versions can be compared
// figure for figure (the same seed gives the same figures).
import type { Picture } from '../src/codec-bridge/types.ts';
import { SyntheticScene } from '../src/codec-bridge/video/synthetic-scene.ts';
import type { VideoSource } from '../src/codec-bridge/video/video-source.ts';
import { runSalsifySim, type SalsifySimResult } from '../src/salsify/sim-runner.ts';
import { option, refuseUnknownOptions } from './options.ts';

refuseUnknownOptions(['baseline-seconds', 'seconds', 'trace']);

const seconds = Number(option('seconds', '640'));
const baselineSeconds = Number(option('baseline-seconds', '20'));
const trace = option('trace', '../shared/traces/ATT-LTE-driving');
if (!(seconds > 0 && baselineSeconds >= 0)) throw new Error('--seconds must be > 0 and --baseline-seconds >= 0');

/** The default synthetic scene, its frames rendered in full (plain pictures: no lumaAt). */
function renderedScene(): VideoSource {
  const scene = new SyntheticScene({ seed: 1 });
  return {
    description: `${scene.description}, rendered in full`,
    width: scene.width,
    height: scene.height,
    fps: scene.fps,
    frameCount: undefined,
    frame: async (index: number): Promise<Picture> => scene.render(index),
    close: () => scene.close(),
  };
}

async function measure(durationS: number, source?: VideoSource): Promise<{ wallS: number; cpuS: number; result: SalsifySimResult }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const result = await runSalsifySim(
    { scheme: 'salsify-1', downlink: `${trace}.down`, uplink: `${trace}.up`, durationS, codec: 'model', video: 'synthetic', seed: 1 },
    source ? { source } : {},
  );
  const used = process.cpuUsage(cpu);
  return { wallS: (performance.now() - t) / 1000, cpuS: (used.user + used.system) / 1e6, result };
}

const f = (x: number, d = 2) => x.toFixed(d);
await measure(1); // warm up (module loading, JIT)

const main = await measure(seconds);
const s = main.result.summary;
console.log(`salsify-1, model codec, synthetic 1280x720@60, ${trace} (drop-tail 256), ${seconds} s of video, seed 1`);
console.log(
  `figures: delay mean ${f(s.signalDelayMs.mean, 1)} p95 ${f(s.signalDelayMs.p95, 1)} ms, SSIM mean ${f(s.ssimDb.mean)} dB, ` +
    `shown ${s.framesShown}, skipped ${s.framesSkipped}, link use ${f(100 * s.linkUtilization, 1)} %`,
);
console.log('| run | video (s) | wall (s) | CPU (s) | CPU per video s (ms) | ratio |');
console.log('|---|---|---|---|---|---|');
const perS = (cpuS: number, videoS: number) => (1000 * cpuS) / videoS;
const mainPerS = perS(main.cpuS, seconds);
console.log(`| this (grid samples) | ${seconds} | ${f(main.wallS)} | ${f(main.cpuS)} | ${f(mainPerS, 1)} | 1 |`);
if (baselineSeconds > 0) {
  const old = await measure(baselineSeconds, renderedScene());
  const oldPerS = perS(old.cpuS, baselineSeconds);
  console.log(`| rendered frames (before) | ${baselineSeconds} | ${f(old.wallS)} | ${f(old.cpuS)} | ${f(oldPerS, 1)} | ${f(oldPerS / mainPerS, 1)} |`);
  const scene = new SyntheticScene({ seed: 1 });
  const frames = Math.round(baselineSeconds * scene.fps);
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < frames; i++) scene.render(i);
  const used = process.cpuUsage(cpu);
  const renderCpuS = (used.user + used.system) / 1e6;
  console.log(`| render only (${frames} frames) | ${baselineSeconds} | ${f((performance.now() - t) / 1000)} | ${f(renderCpuS)} | ${f(perS(renderCpuS, baselineSeconds), 1)} | ${f(perS(renderCpuS, baselineSeconds) / mainPerS, 1)} |`);
  const equal = JSON.stringify(old.result.summary) === JSON.stringify((await measure(baselineSeconds)).result.summary);
  console.log(`rendered and sampled runs of ${baselineSeconds} s give ${equal ? 'identical' : 'DIFFERENT'} summaries`);
}
console.log(`${seconds} s of video in ${f(main.cpuS)} CPU-seconds: ${main.cpuS < 30 ? 'under' : 'OVER'} the 30 s target`);
