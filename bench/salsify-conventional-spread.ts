// How far a scheme's figures move when the preset's other traffic changes by
// a byte or a few percent: conventional-1s against Salsify-1. The figures of
// docs/paper-reproduction.md, "conventional-1s: one run is one draw".
//
//   node --import tsx bench/salsify-conventional-spread.ts [--preset NAME] [--schemes LIST]
//       [--packet-bytes FROM-TO] [--rates LIST] [--video FILE]
//
// Each run is the preset as it is (model codec, paper timing, window
// [62, 702) s; verizon-lte runs Verizon-LTE-driving when the trace lookup
// finds it: LINKSHELL_TRACES=DIR) but for the downlink's other traffic: its
// packets take --packet-bytes on the link (default 96-104: the preset's 100
// and four either side) at the preset's 4,000 bytes a second, and then, with
// 100-byte packets, each rate of --rates (default 3800,3900,4100,4200).
// Every variant is as plausible as the preset's: the paper's bench sent
// 40-odd small packets a second of its own (presets.ts), not exactly these.
//
// Per run: mean / p5 / p95 signal delay, mean SSIM, the share of the frames
// over 1 s of delay that were shown late (src/results/late-frames.ts, the
// conventional-shows-late finding's figure), the p95 of the shown frames' own
// delay (a standing queue; the paper's conventional-1s run: 2.6 s), the
// longest run of frames not shown (a stall) and the link use. Per scheme: the
// least and greatest of each, and how many runs have each delay figure within
// a quarter of the paper's row (../shared/reference/salsify-paper-results.csv).
import { integerValue, nameListValue, nameValue, numberValue } from '../src/common/validate.ts';
import { readPaperResults } from '../src/eval/paper-reference.ts';
import { lateFrames } from '../src/results/late-frames.ts';
import { runSalsifySim } from '../src/salsify/sim-runner.ts';
import { PAPER_OTHER_TRAFFIC, PRESET_NAMES } from '../src/salsify/presets.ts';
import { SCHEME_NAMES, type SchemeName } from '../src/salsify/schemes/registry.ts';
import { option, refuseUnknownOptions } from './options.ts';

refuseUnknownOptions(['preset', 'schemes', 'packet-bytes', 'rates', 'video']);

interface Options {
  preset: string;
  schemes: SchemeName[];
  packetBytes: number[];
  rates: number[];
  video: string;
}

/** FROM-TO, both integers from 33 (the link's 32 bytes of overhead and one) to 1514. */
function packetRange(text: string): number[] {
  const m = /^(\d+)-(\d+)$/.exec(text);
  if (m === null) throw new Error(`--packet-bytes must be FROM-TO (e.g. 96-104), got ${JSON.stringify(text)}`);
  const from = integerValue('packet-bytes', m[1]!, { min: 33, max: 1514 });
  const to = integerValue('packet-bytes', m[2]!, { min: from, max: 1514 });
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function parseOptions(): Options {
  const rates = option('rates', '3800,3900,4100,4200');
  return {
    preset: nameValue('preset', option('preset', 'verizon-lte'), PRESET_NAMES),
    schemes: nameListValue('schemes', option('schemes', 'conventional-1s,salsify-1'), SCHEME_NAMES),
    packetBytes: packetRange(option('packet-bytes', '96-104')),
    rates: rates === '' ? [] : rates.split(',').map((t) => numberValue('rates', t, { min: 100, max: 1e6 }, 'bytes a second')),
    video: option('video', '../shared/video/FourPeople_1280x720_60.ivf'),
  };
}

interface Figures {
  variant: string;
  mean: number;
  p5: number;
  p95: number;
  ssimDb: number;
  lateShare: number;
  /** p95 of the shown frames' own delay (ms): a standing queue shows here. */
  shownP95: number;
  /** The longest run of frames not shown (ms): a stall shows here. */
  longestUnshown: number;
  linkUse: number;
}

async function runVariant(o: Options, scheme: SchemeName, traffic: { bytesPerS: number; packetBytes: number }): Promise<Figures> {
  const run = await runSalsifySim({ preset: o.preset, scheme, codec: 'model', encodeTiming: 'paper', video: o.video, downlinkOtherTraffic: traffic });
  const d = run.summary.signalDelayMs;
  const late = lateFrames(run.frames, run.window);
  return {
    variant: `${traffic.bytesPerS} B/s in ${traffic.packetBytes}-byte packets`,
    mean: d.mean, p5: d.p5, p95: d.p95,
    ssimDb: run.summary.ssimDb.mean,
    lateShare: late.framesOver1s === 0 ? NaN : late.framesOver1sShown / late.framesOver1s,
    shownP95: late.shownDelayP95Ms,
    longestUnshown: late.longestUnshownMs,
    linkUse: run.summary.linkUtilization,
  };
}

const ms = (x: number) => Math.round(x).toString();
const pct = (x: number) => (Number.isFinite(x) ? `${Math.round(100 * x)} %` : '-');
const within = (x: number, reference: number) => Math.abs(x - reference) <= 0.25 * Math.abs(reference);
const range = (xs: number[], show: (x: number) => string) => `${show(Math.min(...xs))} to ${show(Math.max(...xs))}`;

function line(f: Figures): string {
  return `  ${f.variant.padEnd(32)} ${`${ms(f.mean)} / ${ms(f.p5)} / ${ms(f.p95)}`.padStart(18)}   ${f.ssimDb.toFixed(2).padStart(5)}   ${pct(f.lateShare).padStart(5)}   ${ms(f.shownP95).padStart(5)}   ${(f.longestUnshown / 1000).toFixed(1).padStart(5)}   ${pct(f.linkUse).padStart(5)}`;
}

async function main(o: Options): Promise<void> {
  const paper = readPaperResults();
  const variants = [
    ...o.packetBytes.map((packetBytes) => ({ bytesPerS: PAPER_OTHER_TRAFFIC.bytesPerS, packetBytes })),
    ...o.rates.map((bytesPerS) => ({ bytesPerS, packetBytes: PAPER_OTHER_TRAFFIC.packetBytes })),
  ];
  console.log(`${o.preset}, model codec, paper timing, window [62, 702) s; the preset's other traffic: ${PAPER_OTHER_TRAFFIC.bytesPerS} B/s in ${PAPER_OTHER_TRAFFIC.packetBytes}-byte packets`);
  for (const scheme of o.schemes) {
    const row = paper.forScheme(o.preset, scheme);
    console.log(`\n${scheme}${row ? ` (paper: ${ms(row.delayMeanMs)} / ${ms(row.delayP5Ms)} / ${ms(row.delayP95Ms)} ms, ${row.ssimMeanDb.toFixed(2)} dB)` : ''}`);
    console.log(`  ${'other traffic'.padEnd(32)} ${'mean / p5 / p95 ms'.padStart(18)}   ${'SSIM'.padStart(5)}   ${'late'.padStart(5)}   ${'shown p95 ms'.padStart(5)}   ${'stall s'.padStart(5)}   ${'link'.padStart(5)}`);
    const all: Figures[] = [];
    for (const traffic of variants) {
      const f = await runVariant(o, scheme, traffic);
      all.push(f);
      console.log(line(f));
    }
    console.log(`  range: mean ${range(all.map((f) => f.mean), ms)}, p95 ${range(all.map((f) => f.p95), ms)} ms, late share ${range(all.filter((f) => Number.isFinite(f.lateShare)).map((f) => f.lateShare), pct)}, shown frames' p95 ${range(all.map((f) => f.shownP95), ms)} ms`);
    if (row) {
      const count = (pick: (f: Figures) => number, reference: number) => all.filter((f) => within(pick(f), reference)).length;
      console.log(`  within a quarter of the paper's, of ${all.length} runs: mean ${count((f) => f.mean, row.delayMeanMs)}, p5 ${count((f) => f.p5, row.delayP5Ms)}, p95 ${count((f) => f.p95, row.delayP95Ms)}`);
    }
  }
}

let options: Options;
try {
  options = parseOptions();
} catch (error) {
  console.error(`bench/salsify-conventional-spread.ts: ${(error as Error).message}`);
  process.exit(2);
}
await main(options);
