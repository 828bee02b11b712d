// linkshell's CPU time per datagram against others carrying the same load
// in the same run: a minimal Node UDP forwarder (bench/udp-forwarder.ts, the
// floor for a relay written in Node) and Mahimahi's mm-link, or, when mm-link
// is not installed, a plain C forwarder the benchmark builds
// (bench/c-forwarder.c: recv and send, nothing else; a floor below mm-link,
// which the table says). Each relay runs as a process of its own; one sender
// (bench/udp-load.ts, inside the mm-link shell for mm-link) sends the same
// datagrams at the same rate to it, through an unconstrained trace (100
// delivery opportunities per millisecond both ways, so nothing is queued or
// dropped), to a sink in this process. A relay's CPU time is the run time of
// all its threads (/proc/PID/task/*/schedstat, nanoseconds; for mm-link, of
// every mm-link process it forked) over the same steady window for every
// relay: from --warmup seconds after the sender starts (default 3) to 300 ms
// after it stops, --seconds later. Counted: everything each relay does in
// that window. Not counted, for any relay: start-up, the warm-up (the first
// datagrams through a relay; for linkshell, V8 compiling its hot path, which
// a compiled C program such as mm-link does not need) and shut-down. The CPU
// per datagram is that time over the datagrams the sink received in the
// window.
//
// A run counts only when its load started in time (at most 200 ms late) and
// the window caught at least 95 % of the datagrams sent after the warm-up;
// otherwise it is run
// again (--attempts times at most) and, if it never counts, no ratio is
// printed for it. Each load runs --pairs times, the relays interleaved; the
// ratios are of the medians.
//
// Usage:
//   node --import tsx bench/linkshell-cpu.ts [--seconds 10] [--loads 1000x1000,5000x200,20000x200]
//       [--mm-link PATH] [--mm-user USER] [--relays floor,linkshell,linkshell-thread,mm-link] [--linkshell-args "..."]
//       [--pairs 3] [--attempts 3] [--yes N] [--warmup 3]
// --yes N: N busy processes (`yes > /dev/null`, this benchmark's priority) run throughout.
//
// Relays: floor (the Node forwarder), c-forwarder (stands in for mm-link when it is missing), linkshell (its defaults: --timer
// timeout, setTimeout, about a millisecond late at worst, as mm-link's
// millisecond poll), linkshell-thread (--timer thread: the worker thread's
// sub-millisecond alarm), linkshell@DIR (the linkshell of another built checkout
// at DIR, e.g. the parent commit's, for a change measured side by side), mm-link.
// --loads PPSxBYTES,...   offered loads (datagrams per second x payload bytes)
// --mm-link PATH          an mm-link binary (setuid root, as Mahimahi installs it;
//                         it wants net.ipv4.ip_forward=1); default: the one
//                         bench/build-mahimahi.sh built (.cache/mahimahi/bin), else mm-link on PATH
// --mm-user USER          mm-link refuses to run as root: when this benchmark runs
//                         as root, mm-link runs as USER (through setpriv; default nobody)
// Without mm-link the table says so and compares linkshell with the floor only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asMahimahiUser, findMahimahi, mahimahiProblem } from './mahimahi.ts';
import { option, refuseUnknownOptions } from './options.ts';

refuseUnknownOptions(['attempts', 'linkshell-args', 'loads', 'mm-link', 'mm-user', 'pairs', 'relays', 'seconds', 'warmup', 'yes']);

const seconds = Number(option('seconds', '10'));
const loads = option('loads', '1000x1000,5000x200,20000x200').split(',').map((text) => {
  const [pps, size] = text.split('x').map(Number);
  if (!(pps > 0 && size > 0)) throw new Error(`--loads: ${JSON.stringify(text)} is not PPSxBYTES`);
  return { pps, size };
});
const relays = option('relays', 'floor,linkshell,linkshell-thread,mm-link').split(',');
const pairs = Number(option('pairs', '3'));
const attempts = Number(option('attempts', '3'));
const busy = Number(option('yes', '0'));
const warmupSeconds = Number(option('warmup', '3'));
if (!(warmupSeconds >= 0)) throw new Error(`--warmup: ${option('warmup', '3')} is not a number of seconds >= 0`);
const LATE_START_LIMIT_MS = 200;
const CAUGHT_MIN = 0.95;
const linkshellArgs = option('linkshell-args', '').split(' ').filter((a) => a !== '');
const mmUser = option('mm-user', 'nobody');
const mmLink = findMahimahi('mm-link', option('mm-link', ''));
const mmProblem = mmLink === '' ? undefined : mahimahiProblem(mmLink);
if (mmProblem !== undefined) {
  console.error(`bench/linkshell-cpu.ts: ${mmProblem}`);
  process.exit(2);
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const root = here('..');
const dir = mkdtempSync(join(tmpdir(), 'linkshell-cpu-'));
chmodSync(dir, 0o755); // mm-link's user reads the trace
const trace = join(dir, 'unconstrained.trace');
writeFileSync(trace, '1\n'.repeat(100));
chmodSync(trace, 0o644);
const cForwarder = join(dir, 'c-forwarder');
const built = spawnSync('cc', ['-O2', '-o', cForwarder, here('./c-forwarder.c')], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`building bench/c-forwarder.c failed: ${built.stderr || built.error?.message}`);
const yesProcesses = Array.from({ length: busy }, () => spawn('sh', ['-c', 'exec yes > /dev/null'], { stdio: 'ignore' }));
process.on('exit', () => {
  for (const y of yesProcesses) y.kill('SIGKILL');
});

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
  /** Datagrams sent in the window (after the warm-up), and received by the sink in it. */
  sent: number;
  received: number;
  cpuMs: number;
  lateStartMs: number;
  /** linkshell's own figures (its --summary-json), for linkshell runs. */
  summary?: { verdict: string; latenessP99Ms: number | null; kernelDrops: number | null; queueDrops: number };
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
  const warmupMs = warmupSeconds * 1000;
  const startAt = Date.now() + LEAD_MS;
  const load = (host: string, port: number | string) => [...tsx, here('./udp-load.ts'), host, String(port), String(pps), String(size), String(startAt), String(warmupMs + durationMs), String(warmupMs)];
  let relayProcess: ChildProcess;
  let sender: ChildProcess;
  let measured: () => number[];
  const summaryFile = join(dir, `summary-${relays.indexOf(relay)}.json`);
  // (linkshell@DIR: the linkshell of another checkout, built, e.g. the parent commit's, measured side by side.)
  const linkshellBin = relay.startsWith('linkshell@') ? join(relay.slice('linkshell@'.length), 'bin/linkshell.js') : here('../bin/linkshell.js');
  if (relay === 'mm-link') {
    // The shell outlives the load by a few seconds, so that mm-link is still there to be measured after it.
    const command = `node ${load('$MAHIMAHI_BASE', sinkPort).join(' ')}; sleep 3`;
    const mm = [mmLink, trace, trace, '--', 'sh', '-c', command];
    const argv = asMahimahiUser(mm, mmUser);
    relayProcess = spawn(argv[0], argv.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    sender = relayProcess; // the load's output comes out of mm-link's shell
    measured = () => tree(relayProcess.pid!, 'mm-link');
  } else {
    const port = await freePort();
    const argv = relay === 'floor'
      ? ['node', ...tsx, here('./udp-forwarder.ts'), String(port), '127.0.0.1', String(sinkPort)]
      : relay === 'c-forwarder'
        ? [cForwarder, String(port), String(sinkPort)]
        : ['node', linkshellBin, '--trace', trace, '--listen', `127.0.0.1:${port}`, '--connect', `127.0.0.1:${sinkPort}`, '--summary-json', summaryFile, ...linkshellArgs, ...(relay === 'linkshell-thread' ? ['--timer', 'thread'] : [])];
    relayProcess = spawn(argv[0], argv.slice(1), { cwd: root, stdio: ['ignore', 'ignore', 'ignore'] }); // (linkshell's summary on stderr is not needed)
    sender = spawn('node', load('127.0.0.1', port), { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    measured = () => [relayProcess.pid!];
  }
  let output = '';
  sender.stdout!.on('data', (chunk) => (output += chunk));
  await sleep(startAt + warmupMs - Date.now());
  const pids = measured();
  const cpu0 = pids.reduce((sum, pid) => sum + threadsCpuMs(pid), 0);
  const received0 = received;
  await sleep(durationMs + 300);
  const cpuMs = pids.reduce((sum, pid) => sum + threadsCpuMs(pid), 0) - cpu0;
  const got = received - received0;
  if (relay !== 'mm-link') relayProcess.kill('SIGTERM');
  await Promise.all([exited(relayProcess), exited(sender)]);
  const line = output.trim().split('\n').pop() ?? '';
  let report: { sentAfterWarmup: number; lateStartMs: number };
  try {
    report = JSON.parse(line);
  } catch {
    throw new Error(`${relay}: the load reported nothing (${JSON.stringify(output)})`);
  }
  if (relay === 'mm-link' && pids.length === 0) throw new Error('found no mm-link process to measure');
  let summary: RunResult['summary'];
  if (relay.startsWith('linkshell')) {
    const doc = JSON.parse(readFileSync(summaryFile, 'utf8'));
    summary = { verdict: doc.verdict, latenessP99Ms: doc.latenessP99Ms, kernelDrops: doc.kernelDrops, queueDrops: doc.directions[0].drops.queue };
  }
  return { relay, sent: report.sentAfterWarmup, received: got, cpuMs, lateStartMs: report.lateStartMs, summary };
}

/** Why a run does not count (its load started late, or the window missed datagrams), or undefined. */
function invalid(r: RunResult): string | undefined {
  if (r.lateStartMs > LATE_START_LIMIT_MS) return `load started ${r.lateStartMs} ms late`;
  if (!(r.received >= CAUGHT_MIN * r.sent)) return `window caught ${f((100 * r.received) / r.sent)} % of the datagrams`;
  return undefined;
}

/** A run of `relay` that counts, trying up to `attempts` times; undefined (and why, on stdout) if none did. */
async function validRun(relay: string, pps: number, size: number): Promise<RunResult | undefined> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const r = await run(relay, pps, size);
    const why = invalid(r);
    if (why === undefined) return r;
    console.log(`(${relay} at ${pps} x ${size}: run ${attempt} does not count: ${why}${attempt < attempts ? '; again' : '; no valid run'})`);
  }
  return undefined;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const wanted = relays.map((r) => (r === 'mm-link' && mmLink === '' ? 'c-forwarder' : r)).filter((r, i, all) => all.indexOf(r) === i);
const reference = wanted.includes('mm-link') ? 'mm-link' : 'c-forwarder';
const uptime = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`relay CPU per datagram: ${seconds} s measured per run after ${warmupSeconds} s of warm-up, ${pairs} interleaved runs per relay and load, unconstrained trace (100 opportunities/ms), loopback${busy > 0 ? `, ${busy} busy processes (yes > /dev/null) running` : ''}`);
console.log(`load average at the start: ${uptime()}`);
console.log(
  mmLink !== ''
    ? `mm-link: ${mmLink}${process.getuid?.() === 0 ? ` (as ${mmUser})` : ''}`
    : 'mm-link: NOT AVAILABLE (not built by bench/build-mahimahi.sh, none on PATH, no --mm-link): the reference is a plain C forwarder (bench/c-forwarder.c: recv and send only, a floor BELOW mm-link, which also polls a timer and runs a queue)',
);
if (linkshellArgs.length > 0) console.log(`linkshell arguments: ${linkshellArgs.join(' ')}`);
console.log(`| load (pkt/s x bytes) | relay | valid runs | CPU per datagram (us), median | per run | vs floor | vs ${reference} | linkshell verdicts, lateness p99 (ms), kernel drops, queue drops |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const { pps, size } of loads) {
  const runs = new Map<string, RunResult[]>(wanted.map((r) => [r, []]));
  for (let pair = 0; pair < pairs; pair++) {
    for (const relay of wanted) {
      const r = await validRun(relay, pps, size);
      if (r) runs.get(relay)!.push(r);
    }
  }
  const per = (r: RunResult) => (1000 * r.cpuMs) / r.received;
  const med = (relay: string) => median((runs.get(relay) ?? []).map(per));
  const floor = med('floor');
  const ref = med(reference);
  for (const relay of wanted) {
    const rs = runs.get(relay)!;
    const m = med(relay);
    const own = rs.map((r) => (r.summary ? `${r.summary.verdict} ${f(r.summary.latenessP99Ms ?? NaN, 2)} ${r.summary.kernelDrops ?? '?'} ${r.summary.queueDrops}` : '')).filter((x) => x !== '');
    console.log(`| ${pps} x ${size} | ${relay} | ${rs.length} of ${pairs} | ${f(m, 2)} | ${rs.map((r) => f(per(r), 2)).join(', ')} | ${f(m / floor, 2)} | ${f(m / ref, 2)} | ${own.join('; ')} |`);
  }
}
console.log(`load average at the end: ${uptime()}`);
sink.close();
for (const y of yesProcesses) y.kill('SIGKILL');
