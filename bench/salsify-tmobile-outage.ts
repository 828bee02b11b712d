// The paper's T-Mobile runs around the trace's outage (40 to 80 s), read from
// their Cellsim logs and per-frame analyses (excamera/salsify-results); runs
// of 2017 and 2018 whose downlink log is kept, for what the sender sent
// before the clip began and what other traffic the link carried; and what
// the T-Mobile Salsify-1 run's opportunities carried beside its acknowledged
// datagrams. The figures of docs/paper-reproduction.md, "The T-Mobile
// backlog at 62 s".
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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { salsifyResults } from './salsify-results-clone.ts';

const traceDir = process.argv[3] ?? '../shared/traces';
const readFile = salsifyResults('salsify-tmobile-outage', process.argv[2]);
const show = (path: string): string => {
  const text = readFile(path);
  if (text === undefined) {
    console.error(`salsify-tmobile-outage: ${path} is not in the clone of excamera/salsify-results`);
    process.exit(2);
  }
  return text;
};

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

// The runs whose downlink log is kept: what the sender sent before the clip,
// and the other traffic on the link before the sender started.
const PREROLL_RUNS = [
  'benchmarks/0.57mbps-poisson/salsify-1/video3_720p60',
  'benchmarks/Verizon-LTE-short/salsify_2_31cff93/video3_720p60_2min',
  'benchmarks/500kbps/salsify2/video3_720p60_2min',
];
const PREROLL_WIRE_BYTES = 937;
for (const dir of PREROLL_RUNS) {
  const { base, lines } = readLog(show(`${dir}/downlink.log`));
  const arrivals = lines.filter((l) => l.kind === '+');
  const firstBig = arrivals.find((l) => l.bytes >= 1000)!;
  const clipS = (Number(show(`${dir}/${dir.split('/').at(-1)!}.analysis.csv`).split('\n').find((l) => /^\d/.test(l))!.split(',')[1]) / 1000 - base) / 1000;
  const preroll = arrivals.filter((l) => l.s >= firstBig.s + 5 && l.s < clipS - 1);
  const span = clipS - 1 - (firstBig.s + 5);
  const near = preroll.filter((l) => Math.abs(l.bytes - PREROLL_WIRE_BYTES) <= 2).length;
  const before = arrivals.filter((l) => l.s < firstBig.s);
  const beforeBytes = before.reduce((a, l) => a + l.bytes, 0);
  console.log(`${dir.split('/').slice(1, 3).join('/')}: sender's first datagram of 1000 bytes or more at ${firstBig.s.toFixed(2)} s, the analysis from ${clipS.toFixed(1)} s; `
    + `[${(firstBig.s + 5).toFixed(0)}, ${(clipS - 1).toFixed(0)}) s: ${near} datagrams of ${PREROLL_WIRE_BYTES} +- 2 bytes (${(near / span).toFixed(1)} a second), ${preroll.filter((l) => l.bytes >= 1400).length} of 1400 bytes or more; `
    + (firstBig.s > 5 ? `before the sender: other traffic ${(beforeBytes / firstBig.s).toFixed(0)} B/s, ${(before.length / firstBig.s).toFixed(1)} packets/s of ${(beforeBytes / before.length).toFixed(0)} bytes on average` : 'the sender started at once'));
}

// What the T-Mobile Salsify-1 run's downlink carried beside its acknowledged datagrams, were they 937 bytes as above.
{
  const { lines } = readLog(show('benchmarks/TMobile-UMTS-driving/salsify-1/video3_720p60/uplink.log'));
  for (const [from, to] of [[40, 61.85], [61.85, 76]] as const) {
    const acked = lines.filter((l) => isAck(l) && l.s >= from && l.s < to).length;
    const other = opportunitiesIn(from, to) * 1514 - acked * PREROLL_WIRE_BYTES;
    console.log(`TMobile salsify-1 [${from}, ${to}) s: ${opportunitiesIn(from, to)} opportunities x 1514 bytes - ${acked} acknowledged datagrams x ${PREROLL_WIRE_BYTES} = ${other} bytes of other traffic, ${(other / (to - from)).toFixed(0)} B/s`);
  }
}
