// Shared pieces of the linkshell --netns tests: running linkshell as users
// do, servers on the host for the namespace to reach, and what a run must
// leave behind (nothing).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { netnsUnavailable } from '../../src/netns/prerequisites.ts';
import { requires } from '../helpers/requires.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';
import { freeTcpPort } from '../../src/net/free-port.ts';

export const root = join(import.meta.dirname, '../..');
export const bin = join(root, 'bin/linkshell.js');
export const work = mkdtempSync(join(tmpdir(), 'netns-test-'));

/** One 1504-byte opportunity per ms: 12.032 Mbit/s on the link. */
export const TRACE_12MBPS = join(work, '12mbps.trace');
writeFileSync(TRACE_12MBPS, '1\n');
export const CAPACITY_BPS = 1504 * 8 * 1000;

/** The test of the end-to-end runs: skipped where namespaces cannot be made (not root, no /dev/net/tun) or iperf3 is missing. */
export const netnsTest = requires(['iperf3'], { netns: netnsUnavailable() });

export interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `linkshell ARGS` as a separate process. */
export function linkshell(args: string[]): Run {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs `linkshell ARGS` to its end, killing it after `timeoutMs`. */
export async function runLinkshell(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = linkshell(args);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  const { code } = await run.exited;
  clearTimeout(timer);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** A TCP port free on every address of the host right now. */
export const freePort = (): Promise<number> => freeTcpPort('0.0.0.0');

/** iperf3's -J report, the fields the tests read. */
export interface Iperf3Result {
  end: {
    sum_sent?: { bytes: number; bits_per_second: number; packets?: number };
    sum_received?: { bytes: number; bits_per_second: number; packets?: number; lost_packets?: number };
    sum?: { bytes: number; bits_per_second: number; lost_percent: number; packets: number };
  };
}

/** iperf3's -J report from its stdout (anything printed before the JSON skipped). */
export function iperf3Json(stdout: string): Iperf3Result {
  const start = stdout.indexOf('{');
  return JSON.parse(stdout.slice(start)) as Iperf3Result;
}

/** An iperf3 server for one test, listening on every address (the namespace reaches it at $MAHIMAHI_BASE). */
export async function iperf3Server(port: number): Promise<{ stop: () => void }> {
  const server = spawn('iperf3', ['-s', '-1', '-p', String(port)], { stdio: 'ignore' });
  let ended = false;
  server.on('exit', () => (ended = true));
  // (Its "Server listening" line is not flushed into a pipe: wait for the socket instead.)
  const start = Date.now();
  while (!isListening(port)) {
    if (ended || Date.now() - start > HANG_BOUND_MS) throw new Error(`iperf3 -s -p ${port} did not start listening`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { stop: () => server.kill('SIGKILL') };
}

/** True when a TCP socket of this host listens on `port` (/proc/net/tcp and tcp6, state 0A). */
function isListening(port: number): boolean {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].some((file) => {
    try {
      return readFileSync(file, 'utf8').split('\n').some((line) => {
        const fields = line.trim().split(/\s+/);
        return fields[1]?.endsWith(`:${hex}`) && fields[3] === '0A';
      });
    } catch {
      return false;
    }
  });
}

/** The namespace named in linkshell's first line ("... runs in network namespace NAME; ..."). */
export function namespaceOf(stderr: string): string | undefined {
  return /runs in network namespace (\S+);/.exec(stderr)?.[1];
}

/** What a run may not leave behind: its namespace, its files under /etc/netns, its two devices, its processes. */
export function leftovers(namespace: string, pids: readonly number[]): string[] {
  const found: string[] = [];
  const id = namespace.replace(/^linkshell-/, '');
  if (existsSync(`/run/netns/${namespace}`)) found.push(`namespace ${namespace}`);
  if (existsSync(`/etc/netns/${namespace}`)) found.push(`/etc/netns/${namespace}`);
  for (const device of [`ls-${id}-h`, `ls-${id}-i`]) {
    if (existsSync(`/sys/class/net/${device}`)) found.push(`device ${device}`);
  }
  for (const pid of pids) {
    if (isRunning(pid)) found.push(`process ${pid}`);
  }
  return found;
}

/** True while the process exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const r = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  const state = r.stdout.trim();
  return state !== '' && !state.startsWith('Z');
}

/** The pids in a namespace (ip netns pids). */
export function namespacePids(namespace: string): number[] {
  const r = spawnSync('ip', ['netns', 'pids', namespace], { encoding: 'utf8' });
  return r.stdout.split(/\s+/).filter((s) => /^\d+$/.test(s)).map(Number);
}
