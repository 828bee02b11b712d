// The paper's T-Mobile runs around the trace's outage (40 to 80 s), read from
// their Cellsim logs and per-frame analyses (excamera/salsify-results), and
// the one run whose downlink log is kept (0.57mbps-poisson/salsify-1) for
// what the sender sent before the clip began. The figures of
// docs/paper-reproduction.md, "The T-Mobile backlog at 62 s".
//
//   node --import tsx bench/salsify-tmobile-outage.ts [GIT_DIR] [TRACE_DIR]
//
// GIT_DIR: a clone of excamera/salsify-results (as bench/salsify-reference-runs.ts);
// TRACE_DIR: where TMobile-UMTS-driving.down is (default ../shared/traces).
//
// uplink.log lines: "T + BYTES" an arrival at the emulator's queue, "T - BYTES
// DELAY" a departure, "T # 1514" a delivery opportunity; T in Unix ms, from the
// header's base timestamp. An acknowledgement of alfalfa's receiver is 20 bytes
// and 4 per decoded state it holds, so at least 62 bytes as an Ethernet frame;
// the 60-byte frames are other traffic (ARP). Times below are seconds after
// the base timestamp, the clock of the trace (its opportunities line up with
// the trace's milliseconds exactly).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DEFAULT_GIT_DIRS = ['.cache/salsify-results.git', '/work/.mirror/excamera+salsify-results/repo'];
const gitDir = process.argv[2] ?? DEFAULT_GIT_DIRS.find((dir) => existsSync(dir));
const traceDir = process.argv[3] ?? '../shared/traces';
if (gitDir === undefined || !existsSync(gitDir)) {
  console.error(`salsify-tmobile-outage: no clone of excamera/salsify-results at ${gitDir ?? DEFAULT_GIT_DIRS.join(' or ')}`);
  process.exit(2);
}
const show = (path: string) => execFileSync('git', ['--git-dir', gitDir, 'show', `HEAD:${path}`], { encoding: 'utf8', maxBuffer: 1 << 28 });

interface LogLine { readonly s: number; readonly kind: '+' | '-' | '#'; readonly bytes: number }

function readLog(text: string): { base: number; lines: LogLine[] } {
  const base = Number(/# base timestamp: (\d+)/.exec(text)?.[1]);
  if (!Number.isFinite(base)) throw new Error('log without a base timestamp');
  const lines: LogLine[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+) ([+#-]) (\d+)/.exec(line);
    if (m) lines.push({ s: (Number(m[1]) - base) / 1000, kind: m[2] as LogLine['kind'], bytes: Number(m[3]) });
  }
  return { base, lines };
}

const downOpportunities = readFileSync(join(traceDir, 'TMobile-UMTS-driving.down'), 'utf8').split('\n').filter((l) => l !== '').map((l) => Number(l) / 1000);
const opportunitiesIn = (from: number, to: number) => downOpportunities.filter((t) => t >= from && t < to).length;
const isAck = (l: LogLine) => l.kind === '+' && l.bytes >= 62;

for (const run of ['salsify-1', 'salsify2', 'salsify4', 'salsify']) {
  const dir = `benchmarks/TMobile-UMTS-driving/${run}/video3_720p60`;
  const { base, lines } = readLog(show(`${dir}/uplink.log`));
  const acks = lines.filter(isAck);
  const acksIn = (from: number, to: number) => acks.filter((l) => l.s >= from && l.s < to).length;
  // Frames of the clip: sent and received on the bench's clock (microseconds), delay its own.
  const frames = show(`${dir}/video3_720p60.analysis.csv`).split('\n').filter((l) => /^\d/.test(l)).map((l) => l.split(',').map(Number))
    .map(([, sent, , delay]) => ({ sentS: (sent! / 1000 - base) / 1000, delayS: delay! / 1e6 }));
  const window = frames.filter((f) => f.sentS >= 60 && f.sentS < 80);
  const first = frames[0]!;
  // Acknowledgements that each add one decoded state: the receiver completed a frame with every datagram.
  let growing = 0;
  const outage = acks.filter((l) => l.s >= 61.85 && l.s < 76);
  for (let i = 1; i < outage.length; i++) if (outage[i]!.bytes === outage[i - 1]!.bytes + 4) growing++;
  console.log(`${run}: first acknowledgement at ${acks[0]!.s.toFixed(2)} s; clip's first frame sent at ${first.sentS.toFixed(2)} s, delay ${first.delayS.toFixed(2)} s; `
    + `frames sent in [60, 80) s: ${window.length}, mean delay ${(window.reduce((a, f) => a + f.delayS, 0) / window.length).toFixed(2)} s; `
    + `acknowledgements / downlink opportunities: [40, 61.85) s ${acksIn(40, 61.85)} / ${opportunitiesIn(40, 61.85)}, [61.85, 76) s ${acksIn(61.85, 76)} / ${opportunitiesIn(61.85, 76)} `
    + `(${growing} of ${Math.max(0, outage.length - 1)} after the first one state more than the one before)`);
}

// The wifi Salsify-1 run: what the sender sent before the clip (downlink log).
const wifi = readLog(show('benchmarks/0.57mbps-poisson/salsify-1/video3_720p60/downlink.log'));
const arrivals = wifi.lines.filter((l) => l.kind === '+');
const firstFull = arrivals.find((l) => l.bytes === 1464)!;
const preroll = arrivals.filter((l) => l.s >= 15 && l.s < 60);
const common = new Map<number, number>();
for (const l of preroll) if (l.bytes > 900) common.set(l.bytes, (common.get(l.bytes) ?? 0) + 1);
const [size, count] = [...common].sort((a, b) => b[1] - a[1])[0]!;
const beforeSender = arrivals.filter((l) => l.s < firstFull.s);
console.log(`wifi salsify-1: first full datagram (1464 bytes) at ${firstFull.s.toFixed(2)} s; in [15, 60) s the commonest datagram over 900 bytes is ${size} bytes, ${count} of them `
  + `(${(count / 45).toFixed(1)} a second); no datagram of 1464 bytes in [15, 60) s: ${preroll.every((l) => l.bytes !== 1464)}; `
  + `other traffic before the sender started: ${beforeSender.length} packets, ${beforeSender.reduce((a, l) => a + l.bytes, 0)} bytes`);
