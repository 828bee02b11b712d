// GCC (ours, in the simulator) against Chromium's (a real call through
// linkshell, `salsify webrtc`) on RFC 8867 5.1's capacity schedule: 1 Mbit/s,
// 2.5 Mbit/s at 40 s, 0.6 at 60 s, 1 at 80 s; 50 ms one way; drop-tail queue
// of 37500 bytes (300 ms at 1 Mbit/s). Both are judged from the mm-link log
// of the media direction with one set of definitions, per phase:
// - follow (s): from the change (from the first packet, in the first phase)
//   until the offered rate over the last second (the log's arrivals) is
//   within 80 to 110 % of the new capacity and stays there for 2 s (or to
//   the phase's end); "-" if it never does in the phase;
// - estimate follow (s): the same for the sender's estimate (ours: the
//   controller's target; Chromium's: getStats' availableOutgoingBitrate,
//   every 500 ms), which an encoder may not fill;
// - rate: the delivered rate over the phase's second half (Mbit/s), and the
//   phase's utilisation (delivered / capacity bytes);
// - queueing p95: of the per-packet delay at the link (departure - arrival,
//   serialisation included) of the packets delivered in the phase, ms;
// - drops: packets the queue dropped in the phase.
//
//   node --import tsx bench/gcc-vs-chromium.ts [--chromium DIR | --run-chromium DIR [--attempts N]] [--out OUR.log]
//
// (DIR: the output directory of the call, with video-link.log and
// sender-stats.jsonl.) It also prints both estimates every 2 s. Times are
// the schedule's: the log's time less its base timestamp, which `salsify
// webrtc` puts at the media's first RTP packet (linkshell
// --trace-clock-start first-rtp), so the schedule starts with the media.
//
// The Chromium call (about 110 s of real time, one at a time), which
// --run-chromium DIR runs itself (rerunning an invalid call, up to
// --attempts times, default 3: bench/valid-runs.ts):
//   node --import tsx bench/gcc-vs-chromium.ts --write-trace rfc8867-5.1.trace
//   node bin/salsify.js webrtc --downlink rfc8867-5.1.trace --uplink const:12 --delay 50 \
//       --queue droptail --queue-args bytes=37500 --size 1280x720 --fps 30 --duration 100 --out DIR
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWebrtcArgs } from '../src/cli/webrtc-command.ts';
import { runWebrtcBench } from '../src/webrtc/bench.ts';
import { takeAttempts, ValidRuns } from './valid-runs.ts';
import { gccController } from '../src/cc/gcc/gcc.ts';
import { mediaFlow } from '../src/cc/media-flow.ts';
import { LinkLogWriter, LogEventKind, parseLinkLog, type ParsedLinkLog } from '../src/link-emu/link-log.ts';
import { rankQuantile } from '../src/link-emu/log-stats.ts';
import { pathStages } from '../src/link-emu/path.ts';
import { formatTrace } from '../src/link-emu/trace-format.ts';
import type { Trace } from '../src/link-emu/trace.ts';
import { createSimNetwork } from '../src/net/sim-network.ts';
import { Simulator } from '../src/net/simulator.ts';

const SCHEDULE: ReadonlyArray<readonly [number, number]> = [[0, 1_000_000], [40_000, 2_500_000], [60_000, 600_000], [80_000, 1_000_000]];
const END_MS = 100_000;

/** The schedule as 1504-byte opportunities, exact in bits, to `endMs`. */
function scheduleTrace(endMs: number): Trace {
  const times: number[] = [];
  let bits = 0;
  for (let t = 1; t <= endMs; t++) {
    let rate = 0;
    for (const [from, r] of SCHEDULE) if (t - 1 >= from) rate = r;
    bits += rate / 1000;
    while (times.length < Math.floor(bits / (8 * 1504))) times.push(t);
  }
  return { source: 'rfc8867-5.1', times: Float64Array.from(times), period: times[times.length - 1]! };
}

interface Phase {
  fromMs: number;
  toMs: number;
  capacityBps: number;
  followS: number | undefined;
  estimateFollowS: number | undefined;
  secondHalfMbps: number;
  utilization: number;
  queueP95Ms: number;
  drops: number;
}

/** Seconds from `start` until `rate(t)` (sampled every 100 ms) is within 80-110 % of `capacity` and stays there 2 s or to `end`. */
function follow(rate: (t: number) => number | undefined, start: number, end: number, capacity: number): number | undefined {
  let inBandSince: number | undefined;
  for (let t = start; t <= end; t += 100) {
    const r = rate(t);
    const inBand = r !== undefined && r >= 0.8 * capacity && r <= 1.1 * capacity;
    if (!inBand) inBandSince = undefined;
    else {
      inBandSince ??= t;
      if (t - inBandSince >= 2000 || t + 100 > end) return (inBandSince - start) / 1000;
    }
  }
  return undefined;
}

/** The latest sample at or before t of a [time, value] series sorted by time. */
function at(series: ReadonlyArray<readonly [number, number]>, t: number): number | undefined {
  let value: number | undefined;
  for (const [time, v] of series) {
    if (time > t) break;
    value = v;
  }
  return value;
}

/** Event `i`'s time on the schedule: its log time less the log's base timestamp (where the trace starts). */
const scheduleTime = (log: ParsedLinkLog, i: number) => log.time[i]! - (log.header.baseTimestamp ?? 0);

function analyse(log: ParsedLinkLog, estimate: ReadonlyArray<readonly [number, number]>): Phase[] {
  const arrivals: Array<[number, number]> = [];
  let firstArrival = Infinity;
  for (let i = 0; i < log.count; i++) {
    if (log.kind[i] === LogEventKind.Arrival) {
      arrivals.push([scheduleTime(log, i), log.a[i]!]);
      firstArrival = Math.min(firstArrival, scheduleTime(log, i));
    }
  }
  const offered = (from: number, to: number) => {
    let bytes = 0;
    for (const [t, b] of arrivals) if (t >= from && t < to) bytes += b;
    return (bytes * 8 * 1000) / (to - from);
  };
  return SCHEDULE.map(([fromMs, capacityBps], k) => {
    const toMs = k + 1 < SCHEDULE.length ? SCHEDULE[k + 1]![0] : END_MS;
    const start = k === 0 ? firstArrival : fromMs;
    const followS = follow((t) => (t - 1000 >= start ? offered(t - 1000, t) : undefined), start, toMs, capacityBps);
    const estimateFollowS = follow((t) => at(estimate, t), start, toMs, capacityBps);
    let delivered = 0;
    let secondHalf = 0;
    let capacity = 0;
    let drops = 0;
    const delays: number[] = [];
    const half = (fromMs + toMs) / 2;
    for (let i = 0; i < log.count; i++) {
      const t = scheduleTime(log, i);
      if (t < fromMs || t >= toMs) continue;
      const kind = log.kind[i];
      if (kind === LogEventKind.Opportunity) capacity += log.a[i]!;
      else if (kind === LogEventKind.Departure) {
        delivered += log.a[i]!;
        if (t >= half) secondHalf += log.a[i]!;
        delays.push(log.b[i]!);
      } else if (kind === LogEventKind.Drop) drops += log.a[i]!;
    }
    delays.sort((a, b) => a - b);
    return { fromMs, toMs, capacityBps, followS, estimateFollowS, secondHalfMbps: (secondHalf * 8) / ((toMs - half) * 1000), utilization: delivered / capacity, queueP95Ms: rankQuantile(delays, 0.95), drops };
  });
}

async function simulateGcc(): Promise<{ log: string; wallMs: number; estimate: Array<[number, number]> }> {
  let text = '';
  const writer = new LinkLogWriter((chunk) => (text += chunk), { linkName: 'Uplink', traceName: 'rfc8867-5.1', logName: 'gcc-sim.log', commandLine: ['gcc-vs-chromium'], queue: 'droptail [bytes=37500]', initTimestamp: 0, baseTimestamp: 0 });
  const started = performance.now();
  const sim = new Simulator();
  const net = createSimNetwork(sim, {
    uplink: pathStages('uplink', { trace: scheduleTrace(110_000), queue: 'droptail', queueArgs: 'bytes=37500', delayMs: 50, events: writer }),
    downlink: [{ kind: 'delay', ms: 50 }],
    seed: 1,
  });
  const flow = mediaFlow(gccController).create(net.inside, net.outside, { flowId: 0, seed: '1' });
  const estimate: Array<[number, number]> = [];
  const sample = () => {
    estimate.push([sim.now(), flow.targetBitrate()]);
    if (sim.now() < END_MS) sim.after(100, sample);
  };
  sim.at(0, () => {
    flow.start();
    sample();
  });
  sim.at(END_MS, () => flow.stop());
  await sim.run({ until: END_MS + 1000 });
  writer.close();
  return { log: text, wallMs: performance.now() - started, estimate };
}

/** Chromium's estimate: availableOutgoingBitrate of the nominated candidate pair, on the schedule's clock (`originMs`: the log's init timestamp, wall-clock ms as getStats' timestamps, plus its base timestamp). */
function chromiumEstimate(statsJsonl: string, originMs: number): Array<[number, number]> {
  const series: Array<[number, number]> = [];
  for (const line of statsJsonl.split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { report: Array<Record<string, unknown>> };
    for (const o of row.report) {
      if (o.type === 'candidate-pair' && o.nominated === true && typeof o.availableOutgoingBitrate === 'number' && typeof o.timestamp === 'number') {
        series.push([o.timestamp - originMs, o.availableOutgoingBitrate]);
      }
    }
  }
  return series.sort((a, b) => a[0] - b[0]);
}

const fmt = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(1));

function table(name: string, phases: Phase[]): string {
  return phases
    .map((p) => `| ${name} | ${p.fromMs / 1000}-${p.toMs / 1000} s @ ${p.capacityBps / 1e6} | ${fmt(p.followS)} | ${fmt(p.estimateFollowS)} | ${p.secondHalfMbps.toFixed(2)} | ${(100 * p.utilization).toFixed(1)} % | ${p.queueP95Ms} | ${p.drops} |`)
    .join('\n');
}

const { attempts, rest: args } = takeAttempts(process.argv.slice(2));
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

/** Runs the Chromium call into `dir` (the commands above), rerunning an invalid one; false if no attempt was valid. */
async function runChromium(dir: string): Promise<boolean> {
  const work = mkdtempSync(join(tmpdir(), 'gcc-vs-chromium-'));
  const trace = join(work, 'rfc8867-5.1.trace');
  writeFileSync(trace, formatTrace(scheduleTrace(110_000)));
  const runs = new ValidRuns(attempts);
  try {
    const kept = await runs.firstValid('Chromium on RFC 8867 5.1', async (attempt) => {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const call = parseWebrtcArgs(['--downlink', trace, '--uplink', 'const:12', '--delay', '50', '--queue', 'droptail', '--queue-args', 'bytes=37500', '--size', '1280x720', '--fps', '30', '--duration', '100', '--out', dir]).call!;
      process.stderr.write(`bench: the Chromium call, attempt ${attempt}, into ${dir}\n`);
      return (await runWebrtcBench({ ...call, log: (line) => process.stderr.write(`  ${line}\n`) })).validity;
    }, (validity) => validity);
    console.log(runs.report());
    return kept !== undefined;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
const traceOut = opt('--write-trace');
if (traceOut !== undefined) {
  writeFileSync(traceOut, formatTrace(scheduleTrace(110_000)));
  console.log(`wrote ${traceOut} (110 s: the 5.1 schedule, its last phase extended for the call's set-up)`);
} else {
  const ours = await simulateGcc();
  const out = opt('--out');
  if (out !== undefined) writeFileSync(out, ours.log);
  console.log(`GCC (ours) simulated 100 s in ${ours.wallMs.toFixed(0)} ms of wall time`);
  console.log('| controller | phase @ Mbit/s | follow (s) | estimate follow (s) | rate, 2nd half (Mbit/s) | utilisation | queueing p95 (ms) | drops |');
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(table('GCC (ours, simulator)', analyse(parseLinkLog(ours.log, 'gcc-sim.log'), ours.estimate)));
  const runDir = opt('--run-chromium');
  const dir = runDir ?? opt('--chromium');
  if (dir !== undefined && (runDir === undefined || (await runChromium(runDir)))) {
    const logPath = `${dir}/video-link.log`;
    const log = parseLinkLog(readFileSync(logPath, 'utf8'), logPath);
    const estimate = chromiumEstimate(readFileSync(`${dir}/sender-stats.jsonl`, 'utf8'), (log.header.initTimestamp ?? 0) + (log.header.baseTimestamp ?? 0));
    console.log(table('Chromium (salsify webrtc)', analyse(log, estimate)));
    console.log('\nestimates (kbit/s) every 2 s, ours / Chromium\'s:');
    const line: string[] = [];
    for (let t = 2000; t <= END_MS; t += 2000) line.push(`${t / 1000}s ${Math.round((at(ours.estimate, t) ?? 0) / 1000)}/${Math.round((at(estimate, t) ?? 0) / 1000)}`);
    console.log(line.join('  '));
  }
}
