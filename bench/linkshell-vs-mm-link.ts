// linkshell --netns against Mahimahi's mm-link, side by side in one command
// (the two interleaved, --pairs times, so that the shared machine's load
// weighs on both alike):
//   1. start to exit of `SHELL UP DOWN -- true` (wall time, and the CPU time
//      of the shell and everything it started, from this process's
//      children's rusage);
//   2. TCP throughput: iperf3 -c $MAHIMAHI_BASE -t SECONDS from inside the
//      shell to an iperf3 server on the host, through the same trace both
//      ways (the receiver's figure, iperf3's JSON).
// Prints each run, the medians and linkshell/mm-link. Needs root, iperf3,
// and mm-link (bench/build-mahimahi.sh builds it; see bench/mahimahi.ts for
// how it is found and run: as --mm-user, default nobody).
//
// Usage: node --import tsx bench/linkshell-vs-mm-link.ts [--pairs 5] [--seconds 10]
//          [--trace ../shared/traces/12mbps] [--mm-link PATH] [--mm-user USER] [--only startup|tcp]
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { asMahimahiUser, findMahimahi, mahimahiProblem } from './mahimahi.ts';
import { option, refuseUnknownOptions } from './options.ts';
import { freeTcpPort } from '../src/net/free-port.ts';

refuseUnknownOptions(['mm-link', 'mm-user', 'only', 'pairs', 'seconds', 'trace']);

const pairs = Number(option('pairs', '5'));
const seconds = Number(option('seconds', '10'));
const traceBase = option('trace', '../shared/traces/12mbps');
const mmUser = option('mm-user', 'nobody');
const only = option('only', '');
const root = fileURLToPath(new URL('..', import.meta.url));
const mmLink = findMahimahi('mm-link', option('mm-link', ''));
const problem = mmLink === '' ? 'mm-link is not built (sh bench/build-mahimahi.sh) and not on PATH' : mahimahiProblem(mmLink);
if (problem !== undefined) {
  console.error(`bench/linkshell-vs-mm-link.ts: ${problem}`);
  process.exit(2);
}
const up = `${traceBase}.up`;
const down = `${traceBase}.down`;
const SHELLS = ['mm-link', 'linkshell'] as const;
type Shell = (typeof SHELLS)[number];

/** The command line of `shell UP DOWN -- command...`. */
function shellArgv(shell: Shell, command: string[]): string[] {
  return shell === 'mm-link'
    ? asMahimahiUser([mmLink, up, down, '--', ...command], mmUser)
    : [process.execPath, `${root}bin/linkshell.js`, '--netns', up, down, '--', ...command];
}

/** CPU seconds of this process's reaped children so far (utime + stime of /proc/self/stat's cutime, cstime). */
function childrenCpuS(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // (USER_HZ is 100 on Linux)
}

/** Runs argv to its end: wall seconds, children's CPU seconds, stdout, exit status. */
async function timed(argv: string[], timeoutMs: number): Promise<{ wallS: number; cpuS: number; stdout: string; stderr: string; code: number | null }> {
  const cpu0 = childrenCpuS();
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { wallS: (performance.now() - t0) / 1000, cpuS: childrenCpuS() - cpu0, stdout, stderr, code };
}


/** Mbit/s the receiver got over an iperf3 run from inside `shell` to a server on the host, or why not. */
async function tcpRun(shell: Shell): Promise<{ mbps: number } | { error: string }> {
  const port = await freeTcpPort('0.0.0.0');
  const server = spawn('iperf3', ['-s', '-1', '-p', String(port)], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  try {
    const r = await timed(shellArgv(shell, ['sh', '-c', `exec iperf3 -c $MAHIMAHI_BASE -p ${port} -t ${seconds} -J`]), (seconds + 30) * 1000);
    try {
      const doc = JSON.parse(r.stdout);
      return { mbps: doc.end.sum_received.bits_per_second / 1e6 };
    } catch {
      return { error: `${shell} exited ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' / ')}` };
    }
  } finally {
    server.kill('SIGKILL');
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

console.log(`linkshell --netns against mm-link (${mmLink}, as ${mmUser}), ${pairs} interleaved pairs, trace ${up} / ${down}`);
console.log(`load average at the start: ${loadavg()}`);
spawnSync(process.execPath, [`${root}bin/linkshell.js`, '--help'], { stdio: 'ignore' }); // (dist/ current, file cache warm)

if (only !== 'tcp') {
  const runs = new Map<Shell, { wallS: number; cpuS: number }[]>(SHELLS.map((s) => [s, []]));
  for (let pair = 0; pair < pairs; pair++) {
    for (const shell of SHELLS) {
      const r = await timed(shellArgv(shell, ['true']), 60_000);
      if (r.code !== 0) console.log(`(${shell} -- true exited ${r.code}: ${r.stderr.trim().split('\n').pop()}; not counted)`);
      else runs.get(shell)!.push(r);
    }
  }
  console.log('\nstart to exit of `-- true`');
  console.log('| shell | runs | wall s, median | per run | CPU s, median | wall vs mm-link | CPU vs mm-link |');
  console.log('|---|---|---|---|---|---|---|');
  const ref = runs.get('mm-link')!;
  for (const shell of SHELLS) {
    const rs = runs.get(shell)!;
    const wall = median(rs.map((r) => r.wallS));
    const cpu = median(rs.map((r) => r.cpuS));
    console.log(`| ${shell} | ${rs.length} | ${f(wall, 3)} | ${rs.map((r) => f(r.wallS, 3)).join(', ')} | ${f(cpu)} | ${f(wall / median(ref.map((r) => r.wallS)))} | ${f(cpu / median(ref.map((r) => r.cpuS)))} |`);
  }
}

if (only !== 'startup') {
  const runs = new Map<Shell, number[]>(SHELLS.map((s) => [s, []]));
  for (let pair = 0; pair < pairs; pair++) {
    for (const shell of SHELLS) {
      const r = await tcpRun(shell);
      if ('error' in r) console.log(`(${shell} TCP run not counted: ${r.error})`);
      else runs.get(shell)!.push(r.mbps);
    }
  }
  console.log(`\niperf3 TCP, ${seconds} s, inside to host (receiver's Mbit/s)`);
  console.log('| shell | runs | Mbit/s, median | per run | vs mm-link |');
  console.log('|---|---|---|---|---|');
  const ref = median(runs.get('mm-link')!);
  for (const shell of SHELLS) {
    const rs = runs.get(shell)!;
    console.log(`| ${shell} | ${rs.length} | ${f(median(rs))} | ${rs.map((x) => f(x)).join(', ')} | ${f(median(rs) / ref, 3)} |`);
  }
}
console.log(`load average at the end: ${loadavg()}`);
