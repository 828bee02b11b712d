// linkshell's command line: parsed and checked before anything starts.

import { parseArgs } from 'node:util';
import { UsageError } from '../common/usage-error.ts';
import { DEFAULT_MTU } from '../link-emu/link.ts';
import { createQueue } from '../link-emu/queue-factory.ts';
import { createRng } from '../common/random.ts';
import { DEFAULT_OVERHEAD_BYTES } from '../net/sim-network.ts';
import { DEFAULT_SPIN_MS, TIMER_KINDS, type TimerKind } from '../net/wall-clock.ts';
import { parseHostPort, type HostPort } from '../net/address.ts';

export const DEFAULT_MEMORY_CAP_MIB = 64;
export const DEFAULT_MAX_FLOWS = 1024;

export const LINKSHELL_HELP = `Usage:
  linkshell UPLINK_TRACE DOWNLINK_TRACE --connect HOST:PORT [options] [-- COMMAND [ARGS...]]
  linkshell --trace TRACE --connect HOST:PORT [options] [-- COMMAND [ARGS...]]

A real-time emulated link between UDP applications and one peer, as Mahimahi's
mm-link (with mm-delay and mm-loss) but without root. Datagrams sent to the
listen address cross the uplink (trace-driven link, loss, delay) and leave from
linkshell's own socket (one per inside source, like a NAT) towards the peer;
the peer's answers cross the downlink (delay, loss, link) back to the sender.

Options:
  --trace TRACE              same trace both ways (instead of the two positional traces)
  --listen HOST:PORT         where inside applications send (default 127.0.0.1:0; printed)
  --connect HOST:PORT        the outside peer (required)
  --uplink-queue TYPE        infinite | droptail | drophead | codel | pie (default infinite)
  --downlink-queue TYPE
  --uplink-queue-args ARGS   as mm-link, e.g. "packets=100,bytes=30000"
  --downlink-queue-args ARGS
  --once                     stop delivering when a trace ends
  --mtu N                    bytes per delivery opportunity (default ${DEFAULT_MTU})
  --delay MS                 one-way delay each way, integer ms (as mm-delay; default 0)
  --uplink-loss P            independent loss probability 0..1 (as mm-loss)
  --downlink-loss P
  --seed N                   seed of every random draw (loss, PIE; default 1)
  --uplink-log FILE          mm-link log of the uplink
  --downlink-log FILE        mm-link log of the downlink
  --overhead N               link bytes a datagram takes beyond its payload (default ${DEFAULT_OVERHEAD_BYTES}:
                             IPv4 + UDP headers and the TUN header Mahimahi counts)
  --memory-cap MIB           datagram bytes held per direction before arrivals are
                             dropped, whatever the queue (default ${DEFAULT_MEMORY_CAP_MIB})
  --max-sources N            inside sources (address and port) served at once (default
                             ${DEFAULT_MAX_FLOWS}); when full, a new one replaces one idle for a minute
  --timer thread|timeout     how departures are timed: a worker thread's alarm
                             (default; sub-millisecond, little CPU) or setTimeout
  --spin MS                  with --timer timeout, poll the last MS before each
                             departure instead of sleeping: more punctual, more CPU
                             (default ${DEFAULT_SPIN_MS})
  -h, --help                 this text

With -- COMMAND, linkshell runs COMMAND (no shell) with LINKSHELL_ADDR (where to
send) and LINKSHELL_PEER in its environment, passes SIGINT, SIGTERM and SIGHUP
on (the third such signal kills it) and exits with its status (128 + N if
signal N ended it, 127 if it could not be found). Without a command it runs
until SIGINT, SIGTERM or SIGHUP and exits with 0. Either way it then completes
its logs and prints a summary per direction on stderr; on a terminal, a status
line (rates, queue, delay) is kept up to date on stdout meanwhile.
COMMAND runs in a process group of its own: signals reach the whole group (a
shell's background jobs too), and what is left of it ends when linkshell ends,
even when linkshell is killed (SIGKILL).
Bad arguments: one line on stderr, exit status 2, nothing started.

What crosses the link: UDP datagrams sent to LINKSHELL_ADDR, and the answers
that come from the --connect address and port. Anything else bypasses the
emulated link unseen: TCP (iperf3's control connection, any TCP application),
a second port (RTCP on the RTP port + 1), datagrams sent to any other address.
Answers from another port of the peer's host are dropped, counted in the
summary and warned about once. Such applications need a transparent mode,
which linkshell does not have yet.
`;

export interface LinkshellConfig {
  uplinkTrace: string;
  downlinkTrace: string;
  listen: HostPort;
  connect: HostPort;
  uplinkQueue: string;
  uplinkQueueArgs: string;
  downlinkQueue: string;
  downlinkQueueArgs: string;
  once: boolean;
  mtu: number;
  delayMs: number;
  uplinkLoss: number;
  downlinkLoss: number;
  seed: string;
  uplinkLog?: string;
  downlinkLog?: string;
  overheadBytes: number;
  memoryCapBytes: number;
  maxSources: number;
  timer: TimerKind;
  spinMs: number;
  /** COMMAND and its arguments, when given after "--". */
  command?: string[];
}

export type ParsedCommandLine = { help: true } | { help: false; config: LinkshellConfig };

const SEE_HELP = '(see linkshell --help)';

/** Parses linkshell's arguments (without the program name); throws UsageError. */
export function parseLinkshellArgs(argv: readonly string[]): ParsedCommandLine {
  const split = argv.indexOf('--');
  const head = split < 0 ? [...argv] : argv.slice(0, split);
  const command = split < 0 ? undefined : argv.slice(split + 1);
  let parsed;
  try {
    parsed = parseArgs({
      args: head,
      options: {
        trace: { type: 'string' },
        listen: { type: 'string' },
        connect: { type: 'string' },
        'uplink-queue': { type: 'string' },
        'downlink-queue': { type: 'string' },
        'uplink-queue-args': { type: 'string' },
        'downlink-queue-args': { type: 'string' },
        once: { type: 'boolean' },
        mtu: { type: 'string' },
        delay: { type: 'string' },
        'uplink-loss': { type: 'string' },
        'downlink-loss': { type: 'string' },
        seed: { type: 'string' },
        'uplink-log': { type: 'string' },
        'downlink-log': { type: 'string' },
        overhead: { type: 'string' },
        'memory-cap': { type: 'string' },
        'max-sources': { type: 'string' },
        spin: { type: 'string' },
        timer: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\s*\n\s*/g, ' ')} ${SEE_HELP}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };

  let uplinkTrace: string;
  let downlinkTrace: string;
  if (values.trace !== undefined) {
    if (positionals.length > 0) throw new UsageError(`--trace replaces the two trace arguments, but ${JSON.stringify(positionals[0])} was given too ${SEE_HELP}`);
    uplinkTrace = downlinkTrace = values.trace;
  } else if (positionals.length === 2) {
    [uplinkTrace, downlinkTrace] = positionals;
  } else if (positionals.length < 2) {
    throw new UsageError(`missing ${positionals.length === 0 ? 'UPLINK_TRACE and DOWNLINK_TRACE' : 'DOWNLINK_TRACE'} (or --trace TRACE) ${SEE_HELP}`);
  } else {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[2])}; a command goes after "--" ${SEE_HELP}`);
  }
  if (uplinkTrace === '' || downlinkTrace === '') throw new UsageError('empty trace name');

  if (values.connect === undefined) throw new UsageError(`--connect HOST:PORT (the outside peer) is required ${SEE_HELP}`);
  const connect = usage(() => parseHostPort(values.connect!, '--connect'));
  if (connect.port === 0) throw new UsageError('--connect: port 0 is not a peer\'s port');
  const listen = usage(() => parseHostPort(values.listen ?? '127.0.0.1:0', '--listen'));

  const mtu = integer('mtu', values.mtu, DEFAULT_MTU, 1, 65535 + 64);
  const overheadBytes = integer('overhead', values.overhead, DEFAULT_OVERHEAD_BYTES, 0, 4096);
  if (overheadBytes >= mtu) throw new UsageError(`--overhead ${overheadBytes} leaves no room for a payload in an MTU of ${mtu} bytes`);

  const uplinkQueue = values['uplink-queue'] ?? 'infinite';
  const downlinkQueue = values['downlink-queue'] ?? 'infinite';
  const uplinkQueueArgs = values['uplink-queue-args'] ?? '';
  const downlinkQueueArgs = values['downlink-queue-args'] ?? '';
  checkQueue('uplink', uplinkQueue, uplinkQueueArgs);
  checkQueue('downlink', downlinkQueue, downlinkQueueArgs);

  if (command !== undefined && command.length === 0) throw new UsageError(`"--" must be followed by a COMMAND ${SEE_HELP}`);
  if (command !== undefined && command[0] === '') throw new UsageError('empty COMMAND after "--"');

  const seed = values.seed ?? '1';
  if (!/^\d{1,15}$/.test(seed)) throw new UsageError(`--seed must be a non-negative integer, got ${JSON.stringify(seed)}`);

  const memoryCapMiB = integer('memory-cap', values['memory-cap'], DEFAULT_MEMORY_CAP_MIB, 1, 1 << 20);
  const timer = (values.timer ?? 'thread') as TimerKind;
  if (!TIMER_KINDS.includes(timer)) throw new UsageError(`--timer must be ${TIMER_KINDS.join(' or ')}, got ${JSON.stringify(values.timer)}`);
  const spinMs = values.spin === undefined ? DEFAULT_SPIN_MS : decimal('spin', values.spin, 0, 100);
  if (values.spin !== undefined && timer !== 'timeout') throw new UsageError('--spin applies to --timer timeout only');

  if (values['uplink-log'] !== undefined && values['uplink-log'] === values['downlink-log']) {
    throw new UsageError(`--uplink-log and --downlink-log name the same file ${JSON.stringify(values['uplink-log'])}`);
  }
  for (const name of ['uplink-log', 'downlink-log'] as const) {
    if (values[name] === '') throw new UsageError(`--${name} needs a file name`);
  }

  return {
    help: false,
    config: {
      uplinkTrace,
      downlinkTrace,
      listen,
      connect,
      uplinkQueue,
      uplinkQueueArgs,
      downlinkQueue,
      downlinkQueueArgs,
      once: values.once ?? false,
      mtu,
      delayMs: integer('delay', values.delay, 0, 0, 3_600_000),
      uplinkLoss: decimal('uplink-loss', values['uplink-loss'] ?? '0', 0, 1),
      downlinkLoss: decimal('downlink-loss', values['downlink-loss'] ?? '0', 0, 1),
      seed,
      uplinkLog: values['uplink-log'],
      downlinkLog: values['downlink-log'],
      overheadBytes,
      memoryCapBytes: memoryCapMiB * 1024 * 1024,
      maxSources: integer('max-sources', values['max-sources'], DEFAULT_MAX_FLOWS, 1, 65535),
      timer,
      spinMs,
      command,
    },
  };
}

function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function decimal(name: string, text: string, min: number, max: number): number {
  if (!/^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text) || !(Number(text) >= min && Number(text) <= max)) {
    throw new UsageError(`--${name} must be a number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function checkQueue(direction: string, kind: string, args: string): void {
  try {
    createQueue(kind, args, createRng(0));
  } catch (error) {
    throw new UsageError(`--${direction}-queue: ${(error as Error).message}`);
  }
}
