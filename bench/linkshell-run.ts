// One measured linkshell run for the benchmarks: linkshell in this process
// (so its CPU time is this process's), the sending application and the
// counting peer in two child processes (bench/linkshell-traffic.ts).

import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseLinkshellArgs } from '../src/cli/linkshell-options.ts';
import { startLinkshell } from '../src/linkshell/session.ts';
import type { LinkshellReport } from '../src/linkshell/summary.ts';
import type { TrafficCounts } from './linkshell-traffic.ts';

export interface LoadRun {
  report: LinkshellReport;
  counts: TrafficCounts;
  /** CPU time of this process (linkshell) over the run, as a fraction of one core. */
  cpu: number;
  wallMs: number;
}

export interface LoadOptions {
  /** linkshell's arguments without --connect (added). */
  args: string[];
  pps: number;
  size: number;
  durationMs: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadRun> {
  const [sender, sink] = ['send', 'sink'].map((role) =>
    fork(fileURLToPath(new URL('./linkshell-traffic.ts', import.meta.url)), [role], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const next = <T>(child: ChildProcess, key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: Record<string, unknown>) => {
        if (key in message) {
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve(message[key] as T);
        }
      };
      const onExit = (code: number | null) => reject(new Error(`traffic process exited (${code}) before sending ${key}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const [, sinkPort] = await Promise.all([next<number>(sender, 'ready'), next<number>(sink, 'ready')]);
  const parsed = parseLinkshellArgs([...options.args, '--connect', `127.0.0.1:${sinkPort}`]);
  if (parsed.help) throw new Error('unexpected --help');
  const session = await startLinkshell(parsed.config, { warn: (m) => console.error(`linkshell: ${m}`) });
  session.onFatal((error) => {
    console.error(error);
    process.exit(1);
  });
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  sender.send({ start: { host: session.listenAddress.address, port: session.listenAddress.port, pps: options.pps, size: options.size, durationMs: options.durationMs } });
  await new Promise((resolve) => setTimeout(resolve, options.durationMs));
  const report = await session.stop();
  const cpuUsed = process.cpuUsage(cpu0);
  const wallMs = performance.now() - wall0;
  // Datagrams already sent by linkshell are on loopback for microseconds; give them a moment to arrive.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const stopped = [sender, sink].map((child) => {
    const counts = next<TrafficCounts>(child, 'counts');
    child.send({ stop: true });
    return counts;
  });
  const [sent, received] = await Promise.all(stopped);
  await Promise.all([sender, sink].map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
  const counts: TrafficCounts = { sent: sent.sent, sendErrors: sent.sendErrors, received: received.received, receivedBytes: received.receivedBytes };
  return { report, counts, cpu: (cpuUsed.user + cpuUsed.system) / 1000 / wallMs, wallMs };
}

/** The timers the benchmarks compare: plain setTimeout is the same-process baseline. */
export const TIMERS = [
  { label: 'setTimeout (default, baseline)', args: ['--timer', 'timeout'] },
  { label: 'setTimeout + 1 ms spin', args: ['--timer', 'timeout', '--spin', '1'] },
  { label: 'thread alarm', args: ['--timer', 'thread'] },
];

export const fmt = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
