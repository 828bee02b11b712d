// The TCP models (src/tcp/) against real Linux TCP on the same paths: each
// case runs iperf3 (one connection, the namespace sending) inside
// `linkshell --netns` and the model's bulk flow in the simulator over the
// same stages (pathStages, src/link-emu/path.ts), and prints, for both:
// throughput and mean queueing delay on the data's (uplink) link from its
// mm-link log, retransmitted segments and timeouts in the first 5 s and over
// the run (Linux: `nstat` in the namespace, TcpRetransSegs, TCPTimeouts,
// TCPLossProbes; the model: its stats), and the ratios model / Linux.
//
//   node_modules/.bin/tsx bench/tcp-vs-linux.ts [--seconds 40] [--cases 12mbps-20ms-dt256,...]
//       [--cc cubic,reno] [--runs 1] [--out /tmp/tcp-vs-linux] [--sim-only] [--model-slow-start default,hystart++]
//       [--ss-ms 0] [--inherit-cc] [--linux-from DIR]
//
// --linux-from DIR reads Linux's figures from an earlier run's DIR/CASE-CC-rN/
// result.json instead of running Linux again (the models run anew).
//
// --ss-ms N samples Linux's sender (`ss -tin` in the namespace) every N ms
// (default 0: off) into CASE-CC-rN/linux-ss.csv: cwnd, ssthresh, srtt, the
// peer's window, bytes unacknowledged, and the time the connection was
// limited by the receive window and by the send buffer; the model's cwnd and
// ssthresh go to model-SLOWSTART-cwnd.csv beside it. The table then gives
// the mean cwnd of both (Linux: over its samples; the model: over time) and
// the shares of Linux's busy time limited by the receive window and by the
// send buffer. Not under `nice`: Linux and linkshell run in real time.
//
// --model-slow-start lists the models' slow starts to run beside Linux:
// 'default' (CUBIC: Linux's HyStart, NewReno: standard, as Linux), or any
// of hystart++, hystart-linux, standard for both.
//
// Linux: `iperf3 -C cubic|reno`, with the namespace's default congestion
// control set to the same (sysctl net.ipv4.tcp_congestion_control, which is
// per namespace). The namespace inherits the host's default, here bbr, and
// iperf3 3.12 sets -C only once the connection is established, after BBR's
// init has marked the socket as needing pacing (sk_pacing_status =
// SK_PACING_NEEDED), which switching to cubic or reno does not undo: Linux
// then paced them itself at 2x (slow start) or 1.2x cwnd/SRTT. Unpaced, as
// CUBIC and Reno run by default (no sch_fq here: pfifo_fast), is what the
// models model; --inherit-cc keeps the host's default (the paced runs).
// Both run from the first data segment for --seconds; the 5 s figures are
// nstat 5 s after iperf3 starts (its control connection and handshake take
// about 3 RTTs of that) and the model's 5 s after its SYN. Linux runs first: the model's SYN
// leaves one round trip (2 x the delay) before Linux's first data packet
// reached the link, so that both meet the same stretch of a variable trace
// (the link's trace starts with linkshell, and iperf3 starts some hundreds of
// ms later).
//
// The machine is shared: a real-time run under load may see late timers in
// linkshell (the link time is whole milliseconds and a late wake-up does not
// change the emulation, but the kernel's clocks run on). `uptime` is printed
// with the table.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, refuseUnknownOptions } from './options.ts';
import { LinkLogWriter } from '../src/link-emu/link-log.ts';
import { loadTrace } from '../src/link-emu/trace-files.ts';
import { pathStages } from '../src/link-emu/path.ts';
import { createSimNetwork } from '../src/net/sim-network.ts';
import { Simulator } from '../src/net/simulator.ts';
import { tcpBulkFlow } from '../src/tcp/bulk-flow.ts';
import { SLOW_START_KINDS, type SlowStartKind } from '../src/tcp/slow-start.ts';
import { freeTcpPort } from '../src/net/free-port.ts';

refuseUnknownOptions(['cases', 'cc', 'linux-from', 'model-slow-start', 'out', 'runs', 'seconds', 'ss-ms'], ['sim-only', 'inherit-cc']);

const root = fileURLToPath(new URL('..', import.meta.url));
const traces = join(root, '../shared/traces');

interface Case {
  readonly name: string;
  readonly trace: string;
  readonly delayMs: number;
  readonly queueArgs: string;
}

const CASES: readonly Case[] = [
  { name: '12mbps-20ms-dt256', trace: join(traces, '12mbps.up'), delayMs: 20, queueArgs: 'packets=256' },
  { name: '2.4mbps-50ms-dt60', trace: join(traces, '2.4mbps.up'), delayMs: 50, queueArgs: 'packets=60' },
  { name: 'tmobile-lte-20ms-dt256', trace: join(traces, 'TMobile-LTE-short.up'), delayMs: 20, queueArgs: 'packets=256' },
];

type LinuxCc = 'cubic' | 'reno';
const MODEL_CC = { cubic: 'cubic', reno: 'newreno' } as const;

const seconds = Number(option('seconds', '40'));
const caseNames = option('cases', CASES.map((c) => c.name).join(',')).split(',');
const ccs = option('cc', 'cubic,reno').split(',') as LinuxCc[];
const runs = Number(option('runs', '1'));
const out = option('out', '/tmp/tcp-vs-linux');
const simOnly = process.argv.includes('--sim-only');
const linuxFrom = option('linux-from', '');
const inheritCc = process.argv.includes('--inherit-cc');
const ssMs = Number(option('ss-ms', '0'));
if (!(ssMs >= 0)) throw new Error(`--ss-ms must be a number of ms >= 0, got ${ssMs}`);
const modelSlowStarts = option('model-slow-start', 'default,hystart++').split(',') as Array<SlowStartKind | 'default'>;
for (const kind of modelSlowStarts) if (kind !== 'default' && !SLOW_START_KINDS.includes(kind)) throw new Error(`--model-slow-start: default or one of ${SLOW_START_KINDS.join(', ')}, got ${kind}`);
for (const name of caseNames) if (!CASES.some((c) => c.name === name)) throw new Error(`unknown case ${name}; one of ${CASES.map((c) => c.name).join(', ')}`);
for (const cc of ccs) if (!(cc in MODEL_CC)) throw new Error(`--cc: cubic or reno, got ${cc}`);
if (!(seconds >= 6)) throw new Error(`--seconds must be at least 6, got ${seconds}`);

interface Counters {
  retransmits: number;
  timeouts: number;
  lossProbes: number;
}

interface Result {
  throughputMbps: number;
  meanQueueMs: number;
  first5s: Counters;
  whole: Counters;
  /** Linux with --ss-ms: the share of its busy time limited by the receive window, and by the send buffer. */
  rwndLimited?: number;
  sndbufLimited?: number;
  /** Linux: linkshell's verdict on the run (valid, late, kernel drops) and its departures' lateness p99, ms. */
  verdict?: string;
  latenessP99Ms?: number | null;
  /** With --ss-ms: the mean congestion window, segments (Linux: over its samples; the model: over time). */
  meanCwnd?: number;
  /** When the first data packet reached the link, ms of link time (the trace's time). */
  firstDataMs?: number;
}

/**
 * Throughput and mean per-packet queueing delay of the departures in [from, from + seconds), from the first data
 * packet (>= 1000 bytes) on, from mm-link log text (the simulator's events may fall between milliseconds, which
 * parseLinkLog refuses for a log file, hence the plain reading here).
 */
function linkFigures(text: string): { throughputMbps: number; meanQueueMs: number; firstDataMs: number } {
  const events = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => l.split(' '));
  const first = events.find(([, kind, size]) => kind === '+' && Number(size) >= 1000);
  if (first === undefined) throw new Error('no data packet in the link log');
  const from = Number(first[0]);
  const to = from + seconds * 1000;
  let bytes = 0;
  let delay = 0;
  let departures = 0;
  for (const [time, kind, size, wait] of events) {
    if (kind !== '-' || Number(time) < from || Number(time) >= to) continue;
    bytes += Number(size);
    delay += Number(wait);
    departures++;
  }
  return { throughputMbps: (bytes * 8) / (seconds * 1000) / 1000, meanQueueMs: delay / departures, firstDataMs: from };
}


function nstatCounters(text: string): Counters {
  const value = (name: string) => Number(text.match(new RegExp(`^${name}\\s+(\\d+)`, 'm'))?.[1] ?? 0);
  return { retransmits: value('TcpRetransSegs'), timeouts: value('TcpExtTCPTimeouts'), lossProbes: value('TcpExtTCPLossProbes') };
}

async function runLinux(c: Case, cc: LinuxCc, dir: string): Promise<Result> {
  const port = await freeTcpPort('0.0.0.0');
  const server = spawn('iperf3', ['-s', '-1', '-p', String(port)], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const script = [
    // the namespace's default congestion control is the one under test, so that the socket is never BBR's (below)
    ...(inheritCc ? [] : [`sysctl -qw net.ipv4.tcp_congestion_control=${cc}`]),
    `iperf3 -c "$MAHIMAHI_BASE" -p ${port} -t ${seconds} -C ${cc} -J > ${dir}/iperf.json &`,
    'pid=$!',
    ...(ssMs > 0 ? [`(while kill -0 $pid 2>/dev/null; do echo "@ $(date +%s%N)"; ss -tinH "( dport = :${port} )"; sleep ${ssMs / 1000}; done) > ${dir}/ss.log &`] : []),
    'sleep 5',
    `nstat -asz > ${dir}/nstat-5s`,
    'wait $pid',
    `nstat -asz > ${dir}/nstat-end`,
  ].join('\n');
  const args = ['bin/linkshell.js', '--netns', c.trace, c.trace, '--delay', String(c.delayMs), '--uplink-queue', 'droptail', '--uplink-queue-args', c.queueArgs, '--uplink-log', join(dir, 'up.log'), '--summary-json', join(dir, 'linkshell.json'), '--', 'sh', '-c', script];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 60) * 1000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  server.kill();
  if (code !== 0) throw new Error(`linkshell --netns exited with ${code}: ${stderr.trim()}`);
  const { verdict, latenessP99Ms } = JSON.parse(readFileSync(join(dir, 'linkshell.json'), 'utf8')) as { verdict: string; latenessP99Ms: number | null };
  const result: Result = { verdict, latenessP99Ms, ...linkFigures(readFileSync(join(dir, 'up.log'), 'utf8')), first5s: nstatCounters(readFileSync(join(dir, 'nstat-5s'), 'utf8')), whole: nstatCounters(readFileSync(join(dir, 'nstat-end'), 'utf8')) };
  if (ssMs === 0) return result;
  const samples = ssSamples(readFileSync(join(dir, 'ss.log'), 'utf8'));
  writeFileSync(join(dir, 'linux-ss.csv'), ['t_ms,cwnd,ssthresh,srtt_ms,snd_wnd,unacked,busy_ms,rwnd_limited_ms,sndbuf_limited_ms', ...samples.map((x) => [x.tMs, x.cwnd, x.ssthresh, x.srttMs, x.sndWnd, x.unacked, x.busyMs, x.rwndLimitedMs, x.sndbufLimitedMs].join(','))].join('\n') + '\n');
  const last = samples.at(-1);
  if (last === undefined || last.busyMs === 0) return result;
  const meanCwnd = samples.reduce((sum, x) => sum + x.cwnd, 0) / samples.length;
  return { ...result, meanCwnd, rwndLimited: last.rwndLimitedMs / last.busyMs, sndbufLimited: last.sndbufLimitedMs / last.busyMs };
}

interface SsSample {
  tMs: number;
  cwnd: number;
  ssthresh: number;
  srttMs: number;
  sndWnd: number;
  unacked: number;
  busyMs: number;
  rwndLimitedMs: number;
  sndbufLimitedMs: number;
  bytesSent: number;
}

/** The data connection's state in each `@ TIME_NS` block of `ss -tinH` output (the connection, by its local address, that sent most). */
function ssSamples(text: string): SsSample[] {
  const byConnection = new Map<string, SsSample[]>();
  let startNs: bigint | undefined;
  for (const block of text.split('@ ').slice(1)) {
    const [stamp, ...lines] = block.split('\n');
    const ns = BigInt(stamp.trim());
    startNs ??= ns;
    for (let i = 0; i + 1 < lines.length; i++) {
      const info = lines[i + 1];
      if (!info.includes('bytes_sent:')) continue;
      const local = lines[i].trim().split(/\s+/)[3];
      const number = (name: string) => Number(info.match(new RegExp(`\\b${name}:([0-9.]+)`))?.[1] ?? 0);
      const sample = { tMs: Number(ns - startNs) / 1e6, cwnd: number('cwnd'), ssthresh: number('ssthresh'), srttMs: number('rtt'), sndWnd: number('snd_wnd'), unacked: number('unacked'), busyMs: number('busy'), rwndLimitedMs: number('rwnd_limited'), sndbufLimitedMs: number('sndbuf_limited'), bytesSent: number('bytes_sent') };
      if (!byConnection.has(local)) byConnection.set(local, []);
      byConnection.get(local)!.push(sample);
    }
  }
  const sent = (samples: SsSample[]) => samples.at(-1)!.bytesSent;
  return [...byConnection.values()].sort((a, b) => sent(b) - sent(a))[0] ?? [];
}

/** The model's flow starts `startMs` into the trace (its SYN; its first data one round trip later). */
async function runModel(c: Case, cc: LinuxCc, slowStart: SlowStartKind | 'default', dir: string, startMs: number): Promise<Result> {
  const trace = loadTrace(c.trace);
  let text = '';
  const writer = new LinkLogWriter((chunk) => (text += chunk));
  const sim = new Simulator();
  const uplink = pathStages('uplink', { trace, delayMs: c.delayMs, queue: 'droptail', queueArgs: c.queueArgs, events: writer });
  const downlink = pathStages('downlink', { trace, delayMs: c.delayMs });
  const net = createSimNetwork(sim, { uplink, downlink, seed: 1, overheadBytes: 32 });
  const flow = tcpBulkFlow({ cc: MODEL_CC[cc], slowStart: slowStart === 'default' ? undefined : slowStart, recordCwnd: ssMs > 0 }).create(net.inside, net.outside, { flowId: 0, seed: '1' });
  const counters = (): Counters => {
    const s = flow.stats();
    return { retransmits: s.retransmits, timeouts: s.timeouts, lossProbes: s.lossProbes };
  };
  let first5s: Counters | undefined;
  sim.at(startMs, () => flow.start());
  sim.at(startMs + 5000, () => (first5s = counters()));
  await sim.run({ until: startMs + seconds * 1000 + 500 });
  const whole = counters();
  flow.stop();
  writer.close();
  const meanCwnd = ssMs > 0 ? timeMeanCwnd(flow.stats().cwnd, startMs + seconds * 1000) : undefined;
  if (ssMs > 0) writeFileSync(join(dir, `model-${slowStart}-cwnd.csv`), ['t_ms,cwnd,ssthresh,recovery', ...flow.stats().cwnd.map((x) => [x.timeMs, x.cwndBytes / 1448, x.ssthreshBytes / 1448, x.recovery ? 1 : 0].join(','))].join('\n') + '\n');
  const logPath = join(dir, `model-${slowStart}-up.log`);
  writeFileSync(logPath, text);
  return { ...linkFigures(text), first5s: first5s!, whole, meanCwnd };
}

const fmt = (x: number, digits = 2) => x.toFixed(digits);

/** The model's cwnd in segments, averaged over time from its first sample to `endMs`. */
function timeMeanCwnd(samples: ReadonlyArray<{ timeMs: number; cwndBytes: number }>, endMs: number): number {
  let area = 0;
  for (let i = 0; i < samples.length && samples[i].timeMs < endMs; i++) area += (samples[i].cwndBytes / 1448) * (Math.min(samples[i + 1]?.timeMs ?? endMs, endMs) - samples[i].timeMs);
  return area / (endMs - samples[0].timeMs);
}

/** "Linux", with linkshell's verdict (a late run's queueing delay is not to be trusted) and, with --ss-ms, what limited the sender. */
function linuxLabel(real: Result): string {
  const notes: string[] = [];
  if (real.verdict !== undefined) notes.push(`${real.verdict}, lateness p99 ${real.latenessP99Ms === null || real.latenessP99Ms === undefined ? '-' : fmt(real.latenessP99Ms, 1)} ms`);
  if (real.rwndLimited !== undefined) notes.push(`receive-window-limited ${fmt(100 * real.rwndLimited, 0)} %, send-buffer-limited ${fmt(100 * (real.sndbufLimited ?? 0), 0)} %`);
  return notes.length === 0 ? 'Linux' : `Linux (${notes.join('; ')})`;
}
const ratio = (model: number, real: number) => (real === 0 ? (model === 0 ? '1' : 'inf') : fmt(model / real));
const counts = (k: Counters) => `${k.retransmits} / ${k.timeouts} / ${k.lossProbes}`;

const rows: string[] = [];
const load = spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();
console.log(`# tcp-vs-linux: ${seconds} s per run; at start: ${load}`);
for (const name of caseNames) {
  const c = CASES.find((x) => x.name === name)!;
  for (const cc of ccs) {
    for (let run = 1; run <= runs; run++) {
      const dir = join(out, `${c.name}-${cc}-r${run}`);
      mkdirSync(dir, { recursive: true });
      const real = simOnly ? undefined : linuxFrom !== '' ? (JSON.parse(readFileSync(join(linuxFrom, `${c.name}-${cc}-r${run}`, 'result.json'), 'utf8')).real as Result) : await runLinux(c, cc, dir);
      // the model meets the trace where Linux did: its first data one round trip after its SYN
      const startMs = Math.max(0, (real?.firstDataMs ?? 0) - 2 * c.delayMs);
      const models: Array<[SlowStartKind | 'default', Result]> = [];
      for (const kind of modelSlowStarts) models.push([kind, await runModel(c, cc, kind, dir, startMs)]);
      writeFileSync(join(dir, 'result.json'), JSON.stringify({ case: c, cc, seconds, models: Object.fromEntries(models), real }, null, 2) + '\n');
      const line = (who: string, r: Result) => `| ${c.name} | ${cc} | ${run} | ${who} | ${fmt(r.throughputMbps)} | ${fmt(r.meanQueueMs, 1)} | ${r.meanCwnd === undefined ? '-' : fmt(r.meanCwnd, 1)} | ${counts(r.first5s)} | ${counts(r.whole)} |`;
      const before = rows.length;
      if (real) rows.push(line(linuxLabel(real), real));
      for (const [kind, model] of models) {
        rows.push(line(`model (${kind})`, model));
        if (real) rows.push(`| | | | model (${kind}) / Linux | ${ratio(model.throughputMbps, real.throughputMbps)} | ${ratio(model.meanQueueMs, real.meanQueueMs)} | ${model.meanCwnd === undefined || real.meanCwnd === undefined ? '-' : ratio(model.meanCwnd, real.meanCwnd)} | ${ratio(model.first5s.retransmits, real.first5s.retransmits)} / ${ratio(model.first5s.timeouts, real.first5s.timeouts)} | ${ratio(model.whole.retransmits, real.whole.retransmits)} / ${ratio(model.whole.timeouts, real.whole.timeouts)} |`);
      }
      console.error(rows.slice(before).join('\n'));
    }
  }
}
console.log('| case | cc | run | | throughput (Mbit/s) | mean queueing delay (ms) | mean cwnd (segments) | first 5 s: retransmitted segments / timeouts / loss probes | whole run: same |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
console.log(`\nat the end: ${spawnSync('uptime', { encoding: 'utf8' }).stdout.trim()}`);
