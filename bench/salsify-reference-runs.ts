// The paper's own Salsify runs (excamera/salsify-results), read from a bare
// mirror of that repository: each run's published row recomputed from its
// per-frame analysis, the delays of the frames it showed, and, where the run
// keeps its emulator's downlink log, where a frame's delay was spent.
//
//   node --import tsx bench/salsify-reference-runs.ts [GIT_DIR]
//
// GIT_DIR: a clone of excamera/salsify-results (bare, or its .git); default
// .cache/salsify-results.git, else the tool library's mirror
// (/work/.mirror/excamera+salsify-results/repo). A blobless clone is enough
// (the files read are fetched as they are shown):
//   git clone --bare --filter=blob:none https://github.com/excamera/salsify-results .cache/salsify-results.git
//
// Signal delay as scripts/aggregate-stats.py computes it: every source frame
// counts until it or a later one is shown, minus the bench's 66.733 ms. The
// source frames' send times are the playback card's; analysis.csv has them
// only for the frames shown, and the others are interpolated between those
// (the card's clock runs about 0.01 % fast against a 59.94 fps grid, which
// drifts by up to 64 ms over 640 s: a grid gives 20 to 40 ms less delay).
// Frame delay: of the frames shown, their own delay (minus 66.733 ms).
// The split needs the emulator's clock (the downlink log, Unix ms) and the
// bench's CPU clock (analysis.csv) to agree; they are different machines,
// so it is read as the difference between runs, not as absolute figures.
import { salsifyResults } from './salsify-results-clone.ts';

const show = salsifyResults('salsify-reference-runs', process.argv[2]);
const BENCH_LATENCY_US = 66_733;
const GRID_US = 1e6 / 59.94;

/** The runs of the paper's Salsify rows (their mean SSIM is the published one to the fourth decimal). */
const RUNS: readonly { row: string; dir: string; published: readonly [number, number, number] }[] = [
  { row: 'on-off Salsify-1', dir: 'benchmarks/12mbps/salsify-1-onoff.2018-01-29/video3_720p60', published: [265.19, 190.1, 373.64] },
  { row: 'on-off Salsify-2', dir: 'benchmarks/12mbps/salsify-2-onoff.2018-01-29/video3_720p60', published: [181.88, 113.16, 263.27] },
  { row: 'wifi Salsify-1', dir: 'benchmarks/0.57mbps-poisson/salsify-1/video3_720p60', published: [317.7, 176.88, 593.9] },
  { row: 'wifi Salsify-2', dir: 'benchmarks/0.57mbps-poisson/salsify-2/video3_720p60', published: [234.81, 112.28, 429.23] },
  { row: 'att-lte Salsify-1', dir: 'benchmarks/ATT-LTE-driving/salsify-1/video3_720p60', published: [349.09, 181.59, 448.51] },
  { row: 'att-lte Salsify-2', dir: 'benchmarks/ATT-LTE-driving/salsify2/video3_720p60', published: [282.09, 112.19, 362.4] },
  { row: 'verizon-lte Salsify-1', dir: 'benchmarks/Verizon-LTE-driving/salsify-1-256.2017-09-19/video3_720p60', published: [517.44, 166.92, 684.03] },
  { row: 'tmobile-umts Salsify-1', dir: 'benchmarks/TMobile-UMTS-driving/salsify-1/video3_720p60', published: [840.13, 169.22, 3906.75] },
];

/** numpy's default percentile (linear interpolation), as aggregate-stats.py uses. */
function percentile(sorted: readonly number[], p: number): number {
  const x = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(x);
  return sorted[lo]! + (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!) * (x - lo);
}
const figures = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return [s.reduce((a, b) => a + b, 0) / s.length, percentile(s, 5), percentile(s, 95)].map((v) => v / 1000);
};

interface Shown { index: number; sentUs: number; receivedUs: number; sentCpuUs: number; receivedCpuUs: number }

function readAnalysis(text: string): Shown[] {
  return text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
    const f = l.split(',');
    return { index: Number(f[0]), sentCpuUs: Number(f[1]), receivedCpuUs: Number(f[2]), sentUs: Number(f[4]), receivedUs: Number(f[5]) };
  });
}

/** aggregate-stats.py's signal delays (µs, before the bench's latency is taken off), send times interpolated or on a grid. */
function signalDelays(shown: readonly Shown[], sendTime: 'interpolated' | 'grid'): number[] {
  const byIndex = new Map(shown.map((s) => [s.index, s]));
  const first = shown[0]!;
  const last = shown[shown.length - 1]!;
  let k = 0;
  const sentAt = (i: number): number => {
    const s = byIndex.get(i);
    if (s) return s.sentUs;
    if (sendTime === 'grid' || i < first.index) return first.sentUs + (i - first.index) * GRID_US;
    while (shown[k + 1]!.index < i) k++;
    const a = shown[k]!;
    const b = shown[k + 1]!;
    return a.sentUs + ((i - a.index) * (b.sentUs - a.sentUs)) / (b.index - a.index);
  };
  const delays: number[] = [];
  let waiting: number[] = [];
  for (let i = 0; i <= last.index; i++) {
    waiting.push(sentAt(i));
    const s = byIndex.get(i);
    if (s) {
      for (const t of waiting) delays.push(s.receivedUs - t - BENCH_LATENCY_US);
      waiting = [];
    }
  }
  return delays;
}

/** Frames in the downlink log: runs of full 1464-byte datagrams ending with a shorter one (first arrival, last departure; Unix ms). */
function logFrames(log: string): { firstArrivalMs: number; lastDepartureMs: number }[] {
  const packets: { arrival: number; departure: number; bytes: number }[] = [];
  for (const line of log.split('\n')) {
    const f = line.split(' ');
    if (f[1] !== '-' || Number(f[2]) <= 200) continue; // departures of datagrams larger than the acknowledgement-sized ones
    packets.push({ departure: Number(f[0]), arrival: Number(f[0]) - Number(f[3]), bytes: Number(f[2]) });
  }
  packets.sort((a, b) => a.arrival - b.arrival);
  const frames: { firstArrivalMs: number; lastDepartureMs: number }[] = [];
  let current: typeof packets = [];
  for (const p of packets) {
    current.push(p);
    if (p.bytes < 1464) {
      frames.push({ firstArrivalMs: current[0]!.arrival, lastDepartureMs: Math.max(...current.map((c) => c.departure)) });
      current = [];
    }
  }
  return frames.sort((a, b) => a.lastDepartureMs - b.lastDepartureMs);
}

/** For each frame shown, the last logged frame delivered before it was shown: source -> first arrival, -> last departure, -> shown (ms). */
function split(shown: readonly Shown[], frames: ReturnType<typeof logFrames>) {
  const parts: [number[], number[], number[]] = [[], [], []];
  let j = 0;
  for (const s of shown) {
    const shownMs = s.receivedCpuUs / 1000;
    while (j + 1 < frames.length && frames[j + 1]!.lastDepartureMs <= shownMs) j++;
    const f = frames[j]!;
    const sender = f.firstArrivalMs - s.sentCpuUs / 1000;
    if (f.lastDepartureMs > shownMs || sender < 0 || sender > 1000) continue;
    parts[0].push(sender);
    parts[1].push(f.lastDepartureMs - f.firstArrivalMs);
    parts[2].push(shownMs - f.lastDepartureMs);
  }
  const p5Median = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    return `${percentile(s, 5).toFixed(0)} / ${percentile(s, 50).toFixed(0)}`;
  };
  return `source -> first datagram at the link ${p5Median(parts[0])}, -> last datagram delivered ${p5Median(parts[1])}, -> shown ${p5Median(parts[2])} (p5 / median ms, ${parts[0].length} frames)`;
}

const fmt = (v: readonly number[]) => v.map((x) => x.toFixed(0)).join(' / ');
console.log('| paper row | published mean / p5 / p95 ms | recomputed | on a 59.94 fps grid | frame delay p5 / median | median gap between frames shown |');
console.log('|---|---|---|---|---|---|');
const splits: string[] = [];
for (const run of RUNS) {
  const analysis = show(`${run.dir}/video3_720p60.analysis.csv`);
  if (analysis === undefined) {
    console.log(`| ${run.row} | ${fmt(run.published)} | (not in the mirror) | | | |`);
    continue;
  }
  const shown = readAnalysis(analysis);
  const own = shown.map((s) => (s.receivedUs - s.sentUs - BENCH_LATENCY_US) / 1000).sort((a, b) => a - b);
  const gaps = shown.slice(1).map((s, i) => (s.receivedUs - shown[i]!.receivedUs) / 1000).sort((a, b) => a - b);
  console.log(`| ${run.row} | ${fmt(run.published)} | ${fmt(figures(signalDelays(shown, 'interpolated')))} | ${fmt(figures(signalDelays(shown, 'grid')))} | ${percentile(own, 5).toFixed(1)} / ${percentile(own, 50).toFixed(1)} | ${percentile(gaps, 50).toFixed(1)} |`);
  const log = show(`${run.dir}/downlink.log`);
  if (log !== undefined) splits.push(`${run.row}: ${split(shown, logFrames(log))}`);
}
console.log('\nWhere the delay went (the runs that keep their downlink log; the bench\'s 66.7 ms not taken off):');
for (const s of splits) console.log(s);
