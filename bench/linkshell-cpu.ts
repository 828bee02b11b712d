// linkshell's CPU time per datagram against two others carrying the same
// load in the same run: a minimal Node UDP forwarder (bench/udp-forwarder.ts,
// the floor for a relay written in Node) and, when one is given, Mahimahi's
// mm-link. Each relay runs as a process of its own; one sender
// (bench/udp-load.ts, inside the mm-link shell for mm-link) sends the same
// datagrams at the same rate to it, through an unconstrained trace (100
// delivery opportunities per millisecond both ways, so nothing is queued or
// dropped), to a sink in this process. A relay's CPU time is the run time of
// all its threads (/proc/PID/task/*/schedstat, nanoseconds; for mm-link, of
// every mm-link process it forked) from the moment the sender starts to
// 300 ms after it stops: start-up and shut-down are not counted.
//
// Usage:
//   npx tsx bench/linkshell-cpu.ts [--seconds 10] [--loads 1000x1000,5000x200,20000x200]
//       [--mm-link PATH --mm-user USER] [--relays floor,linkshell,linkshell-thread,mm-link] [--linkshell-args "..."]
//
// Relays: floor (the Node forwarder), linkshell (its defaults: --timer
// timeout, setTimeout, about a millisecond late at worst, as mm-link's
// millisecond poll), linkshell-thread (--timer thread: the worker thread's
// sub-millisecond alarm), mm-link.
// --loads PPSxBYTES,...   offered loads (datagrams per second x payload bytes)
// --mm-link PATH          an mm-link binary (setuid root, as Mahimahi installs it;
//                         it wants net.ipv4.ip_forward=1); default: mm-link on PATH if any
// --mm-user USER          mm-link refuses to run as root: when this benchmark runs
//                         as root, mm-link runs as USER (through setpriv)
// Without mm-link the table says so and compares linkshell with the floor only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from './options.ts';

const seconds = Number(option('seconds', '10'));
const loads = option('loads', '1000x1000,5000x200,20000x200').split(',').map((text) => {
  const [pps, size] = text.split('x').map(Number);
  if (!(pps > 0 && size > 0)) throw new Error(`--loads: ${JSON.stringify(text)} is not PPSxBYTES`);
  return { pps, size };
});
const relays = option('relays', 'floor,linkshell,linkshell-thread,mm-link').split(',');
const linkshellArgs = option('linkshell-args', '').split(' ').filter((a) => a !== '');
const mmUser = option('mm-user', '');
const which = spawnSync('sh', ['-c', 'command -v mm-link'], { encoding: 'utf8' });
const mmLink = option('mm-link', which.status === 0 ? which.stdout.trim() : '');

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const root = here('..');
const dir = mkdtempSync(join(tmpdir(), 'linkshell-cpu-'));
chmodSync(dir, 0o755); // mm-link's user reads the trace
const trace = join(dir, 'unconstrained.trace');
writeFileSync(trace, '1\n'.repeat(100));
chmodSync(trace, 0o644);

/** Run time (ms) of every thread of `pid` now; 0 once it is gone. */
function threadsCpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    return 0;
  }
  return ns / 1e6;
}

/** `pid` and its descendants whose command name is `comm` (all of them without one). */
function tree(pid: number, comm?: string): number[] {
  const parent = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const visit = (p: number) => {
    if (comm === undefined || names.get(p) === comm) out.push(p);
    for (const [child, pp] of parent) if (pp === p) visit(child);
  };
  visit(pid);
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

/** A free loopback UDP port (bound, read, closed). */
async function freePort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()));
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface RunResult {
  relay: string;
  sent: number;
  received: number;
  cpuMs: number;
  lateStartMs: number;
}

const sink = createSocket('udp4');
let received = 0;
sink.on('message', () => received++);
await new Promise<void>((resolve) => sink.bind(0, '0.0.0.0', () => resolve()));
try {
  sink.setRecvBufferSize(8 << 20);
} catch {}
const sinkPort = sink.address().port;
const tsx = ['--import', 'tsx'];
const LEAD_MS = 6000;

async function run(relay: string, pps: number, size: number): Promise<RunResult> {
  const durationMs = seconds * 1000;
  const startAt = Date.now() + LEAD_MS;
  const load = (host: string, port: number | string) => [...tsx, here('./udp-load.ts'), host, String(port), String(pps), String(size), String(startAt), String(durationMs)];
  let relayProcess: ChildProcess;
  let sender: ChildProcess;
  let measured: () => number[];
  if (relay === 'mm-link') {
    // The shell outlives the load by a few seconds, so that mm-link is still there to be measured after it.
    const command = `node ${load('$MAHIMAHI_BASE', sinkPort).join(' ')}; sleep 3`;
    const mm = [mmLink, trace, trace, '--', 'sh', '-c', command];
    const argv = process.getuid?.() === 0 ? ['setpriv', `--reuid=${mmUser}`, `--regid=${mmUser}`, '--init-groups', ...mm] : mm;
    relayProcess = spawn(argv[0], argv.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    sender = relayProcess; // the load's output comes out of mm-link's shell
    measured = () => tree(relayProcess.pid!, 'mm-link');
  } else {
    const port = await freePort();
    const argv = relay === 'floor'
      ? [...tsx, here('./udp-forwarder.ts'), String(port), '127.0.0.1', String(sinkPort)]
      : [here('../bin/linkshell.js'), '--trace', trace, '--listen', `127.0.0.1:${port}`, '--connect', `127.0.0.1:${sinkPort}`, ...linkshellArgs, ...(relay === 'linkshell-thread' ? ['--timer', 'thread'] : [])];
    relayProcess = spawn('node', argv, { cwd: root, stdio: ['ignore', 'ignore', 'ignore'] }); // (linkshell's summary on stderr is not needed)
    sender = spawn('node', load('127.0.0.1', port), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    measured = () => [relayProcess.pid!];
  }
  let output = '';
  sender.stdout!.on('data', (chunk) => (output += chunk));
  await sleep(startAt - Date.now());
  const pids = measured();
  const cpu0 = pids.reduce((sum, pid) => sum + threadsCpuMs(pid), 0);
  const received0 = received;
  await sleep(durationMs + 300);
  const cpuMs = pids.reduce((sum, pid) => sum + threadsCpuMs(pid), 0) - cpu0;
  const got = received - received0;
  if (relay !== 'mm-link') relayProcess.kill('SIGTERM');
  await Promise.all([exited(relayProcess), exited(sender)]);
  const line = output.trim().split('\n').pop() ?? '';
  let report: { sent: number; lateStartMs: number };
  try {
    report = JSON.parse(line);
  } catch {
    throw new Error(`${relay}: the load reported nothing (${JSON.stringify(output)})`);
  }
  if (relay === 'mm-link' && pids.length === 0) throw new Error('found no mm-link process to measure');
  return { relay, sent: report.sent, received: got, cpuMs, lateStartMs: report.lateStartMs };
}

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const wanted = relays.filter((r) => r !== 'mm-link' || mmLink !== '');
console.log(`relay CPU per datagram: ${seconds} s per run, unconstrained trace (100 opportunities/ms), loopback`);
console.log(`mm-link: ${mmLink !== '' ? mmLink : 'NOT AVAILABLE (no mm-link on PATH and no --mm-link): linkshell is compared with the Node floor only'}`);
if (linkshellArgs.length > 0) console.log(`linkshell arguments: ${linkshellArgs.join(' ')}`);
console.log('| load (pkt/s x bytes) | relay | sent | received | CPU (ms) | CPU % of a core | CPU per datagram (us) | vs floor | vs mm-link |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const { pps, size } of loads) {
  const results: RunResult[] = [];
  for (const relay of wanted) results.push(await run(relay, pps, size));
  const per = (r: RunResult | undefined) => (r ? (1000 * r.cpuMs) / r.received : NaN);
  const floor = per(results.find((r) => r.relay === 'floor'));
  const mm = per(results.find((r) => r.relay === 'mm-link'));
  for (const r of results) {
    const late = r.lateStartMs > 500 ? ` (load started ${f(r.lateStartMs, 0)} ms late)` : '';
    console.log(`| ${pps} x ${size} | ${r.relay}${late} | ${r.sent} | ${r.received} | ${f(r.cpuMs)} | ${f(r.cpuMs / (seconds * 10))} | ${f(per(r), 2)} | ${f(per(r) / floor, 2)} | ${f(per(r) / mm, 2)} |`);
  }
}
sink.close();
