// Capacity of linkshell on one core: 200-byte datagrams at increasing rates
// through an unconstrained trace (100 opportunities per millisecond, about
// 1.2 Gbit/s), each rate for a few seconds; a rate is sustained when
// linkshell takes in what was sent and the peer receives what linkshell sent
// (>= 99.5% each), the kernel dropped none at linkshell's socket, and
// departures keep up with their opportunities (median lateness <= 1 ms; p99
// is reported, and on a shared machine it mostly measures the other
// processes). The sender (bench/udp-load.ts) sends what it owes every
// millisecond, so a sender held up by other work catches up late in bursts:
// linkshell is stopped only once the sender has sent everything and
// 300 ms more have passed, so that what was sent late is not counted as
// lost. linkshell's CPU time per datagram gives the rate one whole core
// would carry. Then linkshell's CPU use carrying
// traffic at the mean rate of the ATT LTE trace (5.19 Mbit/s of 1472-byte
// datagrams through ATT-LTE-driving.down) with each timer (plain setTimeout
// is the same-process baseline).
//
// Usage: node --import tsx bench/linkshell-capacity.ts [seconds-per-rate=3] [att-seconds=30] [rates=10000,25000,50000,75000,100000]

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { parseLinkshellArgs } from '../src/cli/linkshell-options.ts';
import { startLinkshell } from '../src/linkshell/session.ts';
import type { LinkshellReport } from '../src/linkshell/summary.ts';
import { fmt, runLoad, TIMERS } from './linkshell-run.ts';
import type { TrafficCounts } from './linkshell-traffic.ts';

const seconds = Number(process.argv[2] ?? 3);
const attSeconds = Number(process.argv[3] ?? 30);
const rates = (process.argv[4] ?? '10000,25000,50000,75000,100000').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'linkshell-bench-'));
const unconstrained = join(dir, 'unconstrained.trace');
writeFileSync(unconstrained, '1\n'.repeat(100));

console.log(`linkshell capacity: 200-byte datagrams through ${unconstrained} (100 opportunities/ms), ${seconds} s per rate`);
console.log('| offered pkt/s | sent pkt/s | taken in by linkshell / sent | dropped by the kernel at linkshell\'s socket (full buffer) | received by peer / sent by linkshell | lateness p50 / p99 / max ms | linkshell CPU | CPU per datagram | pkt/s at one full core | sustained |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

/** The first IPC message of `child` that has `key`. */
function next<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: Record<string, unknown>) => {
      if (!(key in message)) return;
      child.off('message', onMessage);
      resolve(message[key] as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`traffic process exited (${code}) before sending ${key}`)));
  });
}

/** linkshell in this process (its CPU is this process's), the sender and the counting peer in processes of their own. */
async function capacityRun(pps: number, size: number, durationMs: number): Promise<{ report: LinkshellReport; counts: { sent: number; received: number }; cpu: number; wallMs: number }> {
  const sink = fork(here('./linkshell-traffic.ts'), ['sink'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const sinkPort = await next<number>(sink, 'ready');
  const parsed = parseLinkshellArgs(['--trace', unconstrained, '--connect', `127.0.0.1:${sinkPort}`]);
  if (parsed.help) throw new Error('unexpected --help');
  const session = await startLinkshell(parsed.config, { warn: (m) => console.error(`linkshell: ${m}`) });
  const startAt = Date.now() + 2000;
  const { address, port } = session.listenAddress;
  const sender = spawn('node', ['--import', 'tsx', here('./udp-load.ts'), address, String(port), String(pps), String(size), String(startAt), String(durationMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  sender.stdout!.on('data', (chunk) => (output += chunk));
  await sleep(startAt - Date.now());
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await exited(sender);
  await sleep(300);
  const report = await session.stop();
  const cpuUsed = process.cpuUsage(cpu0);
  const wallMs = performance.now() - wall0;
  const counted = next<TrafficCounts>(sink, 'counts');
  sink.send({ stop: true });
  const received = (await counted).received;
  await exited(sink);
  const { sent } = JSON.parse(output.trim().split('\n').pop() ?? '{}') as { sent: number };
  return { report, counts: { sent, received }, cpu: (cpuUsed.user + cpuUsed.system) / 1000 / wallMs, wallMs };
}

let best = 0;
for (const pps of rates) {
  const run = await capacityRun(pps, 200, seconds * 1000);
  const up = run.report.directions[0].stats;
  const takenIn = up.packetsIn / run.counts.sent;
  const peerGot = run.counts.received / up.packetsOut;
  const late = up.departureLatenessMs;
  const kernelDrops = run.report.directions[0].socketDrops;
  const sustained = takenIn >= 0.995 && peerGot >= 0.995 && kernelDrops === 0 && late.quantile(0.5) <= 1;
  const cpuPerDatagramUs = (run.cpu * run.wallMs * 1000) / up.packetsIn;
  if (sustained) best = Math.max(best, pps);
  console.log(
    `| ${pps} | ${fmt(run.counts.sent / seconds, 0)} | ${fmt((100 * up.packetsIn) / run.counts.sent, 2)} % | ${kernelDrops ?? '?'} | ${fmt((100 * run.counts.received) / up.packetsOut, 2)} % | ${fmt(late.quantile(0.5))} / ${fmt(late.quantile(0.99))} / ${fmt(late.max())} | ${fmt(100 * run.cpu, 1)} % | ${fmt(cpuPerDatagramUs, 1)} us | ${fmt(1e6 / cpuPerDatagramUs, 0)} | ${sustained ? 'yes' : 'no'} |`,
  );
}
console.log(`highest sustained rate: ${best} datagrams/s\n`);

const att = fileURLToPath(new URL('../../shared/traces/ATT-LTE-driving.down', import.meta.url));
const attPps = Math.round((5.187e6 / 8) / 1504);
console.log(`linkshell CPU at the ATT LTE rate: ${attPps} datagrams/s of 1472 bytes through ATT-LTE-driving.down, ${attSeconds} s`);
console.log('| timer | CPU | CPU vs baseline | lateness p50 / p99 / max ms | delivered / sent (the rest still queued at the end) |');
console.log('|---|---|---|---|---|');
let baselineCpu = NaN;
for (const timer of TIMERS) {
  const run = await runLoad({ args: ['--trace', att, ...timer.args], pps: attPps, size: 1472, durationMs: attSeconds * 1000 });
  const late = run.report.directions[0].stats.departureLatenessMs;
  if (timer === TIMERS[0]) baselineCpu = run.cpu;
  console.log(
    `| ${timer.label} | ${fmt(100 * run.cpu, 1)} % | ${fmt(run.cpu / baselineCpu, 2)} | ${fmt(late.quantile(0.5))} / ${fmt(late.quantile(0.99))} / ${fmt(late.max())} | ${fmt((100 * run.counts.received) / run.counts.sent, 2)} % |`,
  );
}
