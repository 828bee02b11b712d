// The Salsify paper's evaluation in the simulator: every preset (the paper's
// scenarios, src/salsify/presets.ts: trace, 20 ms each way, queue, loss,
// on/off, 1514-byte opportunities, 702 s captured and [62, 702) s measured)
// for every scheme, with the paper's and libvpx's encode timing, printed
// beside the paper's rows (../shared/reference/salsify-paper-results.csv).
// Rows whose figure differs from the paper's by more than a quarter are
// marked with "*".
//
//   LINKSHELL_TRACES=../shared/traces node --import tsx bench/salsify-paper.ts \
//       [--presets att-lte,...] [--schemes salsify-1,...] [--timings paper,libvpx] \
//       [--codec model|vp8] [--video SRC] [--duration S] [--csv OUT.csv]
//       [--findings OUT.json]
//
// Defaults: every preset, every scheme `salsify sim` runs, both timings, the
// model codec on the synthetic 720p60 video. --duration shortens the run
// (the window then starts at 62 s only if the run is longer; otherwise the
// whole run after its first tenth is measured) for a quick look; the paper's
// figures need the full 702 s. With --codec vp8 use
// --video ../shared/video/FourPeople_1280x720_60.ivf (SSIM of real pictures).
// Then the paper's findings (src/eval/findings.ts) on the runs of the first
// timing given, printed and written to --findings (default findings.json).
import { evaluateFindings, figureAgreement, type Figures } from '../src/eval/findings.ts';
import { findingsText, paperFigures, tracesLine } from '../src/eval/findings-output.ts';
import type { ScenarioTrace } from '../src/eval/scenario-traces.ts';
import { readPaperResults } from '../src/eval/paper-reference.ts';
import { jsonText } from '../src/results/json.ts';
import { lateFrames } from '../src/results/late-frames.ts';
import { writeResultsFile } from '../src/results/writer.ts';
import { PRESET_NAMES, simPreset } from '../src/salsify/presets.ts';
import { SIM_SCHEME_NAMES } from '../src/salsify/schemes/registry.ts';
import { runSalsifySim, type SalsifySimConfig } from '../src/salsify/sim-runner.ts';
import { ENCODE_TIMINGS, type EncodeTimingModel } from '../src/salsify/timing-model.ts';
import { option, refuseUnknownOptions } from './options.ts';

refuseUnknownOptions(['presets', 'schemes', 'timings', 'codec', 'video', 'duration', 'csv', 'findings']);

const list = <T extends string>(name: string, all: readonly T[]): T[] => {
  const names = option(name, all.join(',')).split(',');
  for (const n of names) if (!all.includes(n as T)) throw new Error(`--${name}: unknown ${JSON.stringify(n)} (expected ${all.join(', ')})`);
  return names as T[];
};
const presets = list('presets', PRESET_NAMES);
const schemes = list('schemes', SIM_SCHEME_NAMES);
const timings = list<EncodeTimingModel>('timings', ENCODE_TIMINGS);
const codec = option('codec', 'model') as SalsifySimConfig['codec'];
const video = option('video', 'synthetic');
const durationText = option('duration', '');
const csvOut = option('csv', '');
const findingsOut = option('findings', 'findings.json');
/** Our figures for the findings: the runs of the first timing. */
const ours = new Map<string, Figures>();
/** The trace each preset ran (the Verizon presets: Verizon-LTE-driving when the trace lookup finds it, else the stand-in). */
const traces: ScenarioTrace[] = [];

const paperResults = readPaperResults();

const fmt = (v: number | undefined, digits = 0) => (v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits));
/** Our figure, with "*" when it differs from the paper's by more than a quarter. */
const vs = (ours: number, theirs: number | undefined, digits = 0) =>
  `${fmt(ours, digits)}${theirs !== undefined && Number.isFinite(ours) && Math.abs(ours - theirs) > 0.25 * Math.abs(theirs) ? '*' : ''}`;

const header = ['scenario', 'scheme', 'timing', 'mean', 'p5', 'p95 (ms)', 'SSIM (dB)', 'paper mean', 'p5', 'p95', 'SSIM', 'link use', 'skipped', 'wall (s)'];
const rows: string[][] = [];
const csv: string[] = ['scenario,trace,scheme,timing,codec,delay_mean_ms,delay_p5_ms,delay_p95_ms,ssim_mean_db,paper_delay_mean_ms,paper_delay_p5_ms,paper_delay_p95_ms,paper_ssim_mean_db,link_utilization,frames_captured,frames_skipped,frames_superseded,wall_s'];
console.log(`codec ${codec}, video ${video}${durationText ? `, ${durationText} s runs (not the paper's window)` : ", the paper's window: 702 s captured, [62, 702) s measured"}`);
for (const name of presets) {
  const preset = simPreset(name);
  traces.push({ scenario: name, trace: preset.trace, label: preset.label, ...(preset.standInFor ? { standInFor: preset.standInFor } : {}) });
  for (const scheme of schemes) {
    for (const encodeTiming of timings) {
      const durationS = durationText ? Number(durationText) : undefined;
      const windowed = durationS === undefined ? {} : durationS > 62 + 10 ? { durationS, measureForS: durationS - 62 } : { durationS, measureFromS: durationS / 10, measureForS: durationS * 0.9 };
      const started = performance.now();
      const r = await runSalsifySim({ preset: name, scheme, encodeTiming, codec, video, ...windowed });
      const wallS = (performance.now() - started) / 1000;
      const s = r.summary;
      if (encodeTiming === timings[0]) {
        ours.set(`${name}/${scheme}`, {
          delayMeanMs: s.signalDelayMs.mean, delayP5Ms: s.signalDelayMs.p5, delayP95Ms: s.signalDelayMs.p95, ssimDb: s.ssimDb.mean,
          ...lateFrames(r.frames, r.window),
        });
      }
      const paperRow = paperResults.forScheme(name, scheme);
      const p = paperRow && { mean: paperRow.delayMeanMs, p5: paperRow.delayP5Ms, p95: paperRow.delayP95Ms, ssim: paperRow.ssimMeanDb };
      const row = [
        name, scheme, encodeTiming,
        vs(s.signalDelayMs.mean, p?.mean), vs(s.signalDelayMs.p5, p?.p5), vs(s.signalDelayMs.p95, p?.p95), vs(s.ssimDb.mean, p?.ssim, 2),
        fmt(p?.mean), fmt(p?.p5), fmt(p?.p95), fmt(p?.ssim, 2),
        `${fmt(100 * s.linkUtilization, 1)} %`, String(s.framesSkipped), wallS.toFixed(1),
      ];
      rows.push(row);
      console.log(row.join('  '));
      csv.push([
        name, JSON.stringify(preset.label), scheme, encodeTiming, codec, s.signalDelayMs.mean, s.signalDelayMs.p5, s.signalDelayMs.p95, s.ssimDb.mean,
        p?.mean ?? '', p?.p5 ?? '', p?.p95 ?? '', p?.ssim ?? '', s.linkUtilization, s.framesCaptured, s.framesSkipped, s.framesSuperseded, wallS.toFixed(1),
      ].join(','));
    }
  }
}

// A Markdown table, ready for the README.
console.log('');
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
console.log(`\n"*": differs from the paper by more than a quarter. ${tracesLine(traces)}.`);
if (csvOut) writeResultsFile(csvOut, csv.join('\n') + '\n');

const paperTable = paperFigures(paperResults);
const findings = { traces, findings: evaluateFindings(paperTable, ours, traces), agreement: figureAgreement(paperTable, ours, traces) };
console.log(`\n${timings[0]} timing: ${findingsText(findings)}`);
writeResultsFile(findingsOut, jsonText(findings));
