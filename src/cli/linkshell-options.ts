// linkshell's command line: parsed and checked before anything starts.

import type { parseArgs } from 'node:util';
import { usageError } from '../common/errors.ts';
import {
  formatHelp, hostPortValue, integerValue, LIMITS, nameValue, numberValue, optional, parseCommandLine, pathValue, probabilityValue, refuseOutputsOverInputs, seedValue, type NamedFile,
} from '../common/validate.ts';
import { DEFAULT_MTU } from '../link-emu/link.ts';
import { LOSS_PLACES } from '../link-emu/path.ts';
import { TRACE_CLOCK_STARTS } from '../linkshell/trace-clock.ts';
import { queueOption } from './queue-option.ts';
import { DEFAULT_DRAIN_MS, DEFAULT_MAX_FLOWS, DEFAULT_MEMORY_CAP_MIB, DRAIN_QUIET_MS, MAX_DRAIN_MS, NETNS_OVERHEAD_BYTES, type LinkshellConfig, type NetnsConfig } from '../linkshell/config.ts';
import { MAX_ONOFF_MS, onOffValue, rejectMeterFlags } from './mahimahi-flags.ts';
import { tokenize } from '../common/command-line.ts';
import { traceFile } from '../link-emu/trace-files.ts';
import { DEFAULT_OVERHEAD_BYTES } from '../net/sim-network.ts';
import { DEFAULT_SPIN_MS, TIMER_KINDS } from '../net/wall-clock.ts';

export type { LinkshellConfig, NetnsConfig } from '../linkshell/config.ts';

export const LINKSHELL_HELP = formatHelp({
  usage: [
    'linkshell UPLINK_TRACE DOWNLINK_TRACE --connect HOST:PORT [options] [-- COMMAND [ARGS...]]',
    'linkshell --trace TRACE --connect HOST:PORT [options] [-- COMMAND [ARGS...]]',
    'linkshell --netns UPLINK_TRACE DOWNLINK_TRACE [options] [--] [COMMAND [ARGS...]]',
  ],
  about: `A real-time emulated link between UDP applications and one peer, as Mahimahi's
mm-link (with mm-delay and mm-loss) but without root. Datagrams sent to the
listen address cross the uplink (trace-driven link, loss, delay) and leave from
linkshell's own socket (one per inside source, like a NAT) towards the peer;
the peer's answers cross the downlink (delay, loss, link) back to the sender.`,
  options: [
    ['--trace TRACE', 'same trace both ways (instead of the two positional traces)'],
    ['--listen HOST:PORT', 'where inside applications send (default 127.0.0.1:0;\nprinted)'],
    ['--connect HOST:PORT', 'the outside peer (required without --netns; port 1 to\n65535)'],
    ['--netns', 'transparent mode: COMMAND in a network namespace of its\nown, every IP packet through the link (needs root; see\nbelow)'],
    ['--uplink-queue TYPE', 'infinite | droptail | drophead | codel | pie\n(default infinite)'],
    ['--downlink-queue TYPE', ''],
    ['--uplink-queue-args ARGS', 'as mm-link, e.g. "packets=100,bytes=30000"'],
    ['--downlink-queue-args ARGS', ''],
    ['--once', 'end the run when a trace ends (the shorter one), as\nmm-link\'s shell ends: COMMAND is stopped (SIGTERM to\nits group) and linkshell exits 0'],
    ['--drain MS', `after COMMAND exits by itself, keep carrying what is\nstill on the link, and what is still sent (a TCP\nconnection's last bytes and its close), until both\ndirections have been empty for ${DRAIN_QUIET_MS} ms, at most MS\n(0 to ${MAX_DRAIN_MS}; default ${DEFAULT_DRAIN_MS}); 0 stops at once, dropping\nit, as mm-link does`],
    ['--mtu N', `bytes per delivery opportunity, 1 to ${65535 + 64} (default ${DEFAULT_MTU})`],
    ['--delay MS', `one-way delay each way, integer ms from 0 to ${LIMITS.maxDelayMs}\n(as mm-delay; default 0)`],
    ['--uplink-loss P', 'independent loss probability 0..1 (as mm-loss)'],
    ['--downlink-loss P', ''],
    ['--uplink-loss-at WHERE', "where the loss applies: entry (mm-loss's place, the\ndefault: before the downlink's queue, after the\nuplink's link) or delivery (right after the link: a\nlost datagram has used its delivery opportunity, as\nCellsim's loss)"],
    ['--downlink-loss-at WHERE', ''],
    ['--uplink-onoff ON,OFF', `intermittent link (as mm-onoff): on and off periods\nexponentially distributed with these means, in ms (0\nto ${MAX_ONOFF_MS}; mm-onoff's are in seconds); what\narrives while off is lost`],
    ['--downlink-onoff ON,OFF', ''],
    ['--uplink-intermittent ON,OFF', 'intermittent link (as mm-intermittent): on for ON ms,\noff for OFF ms, in turn, starting on (mm-intermittent\'s\nare in seconds); what arrives while off is lost. For\nboth: one of ON and OFF may be 0 (0,1000: always off;\n1000,0: always on)'],
    ['--downlink-intermittent ON,OFF', ''],
    ['--trace-clock-start WHEN', 'when the traces start: now (default, as mm-link),\nfirst-packet (the first datagram either way) or\nfirst-rtp (the first RTP packet either way, bare or in\nTURN; not RTCP, STUN or DTLS). Until then datagrams\npass unemulated and unlogged, so that packet meets\nthe traces\' time zero; both directions start together'],
    ['--seed N', 'seed of every random draw (loss, PIE): an integer from\n0 to 2^53-1 (default 1)'],
    ['-u, --uplink-log FILE', 'mm-link log of the uplink'],
    ['-d, --downlink-log FILE', 'mm-link log of the downlink'],
    ['--summary-json FILE', 'the summary and the run\'s verdict (valid, late, kernel\ndrops) as JSON'],
    ['--overhead N', `link bytes a datagram takes beyond its payload, 0 to 4096\n(default ${DEFAULT_OVERHEAD_BYTES}: IPv4 + UDP headers and the TUN header\nMahimahi counts; with --netns ${NETNS_OVERHEAD_BYTES}, the TUN header: a\npacket is a whole IP packet there)`],
    ['--memory-cap MIB', `datagram bytes held per direction before arrivals are\ndropped, whatever the queue, 1 to ${1 << 20} (default ${DEFAULT_MEMORY_CAP_MIB})`],
    ['--max-sources N', `inside sources (address and port) served at once, 1 to\n65535 (default ${DEFAULT_MAX_FLOWS}); when full, a new one replaces\none idle for a minute`],
    ['--timer timeout|thread', "how departures are timed: setTimeout (default;\nmillisecond precision, as mm-link's own poll, at\n1.4x to 1.8x mm-link's CPU per datagram) or a worker\nthread's alarm (sub-millisecond departures, 1.2x to\n1.5x the CPU: a second wake-up per departure)"],
    ['--spin MS', `with --timer timeout, poll the last MS (0 to 100) before\neach departure instead of sleeping: more punctual,\nmore CPU (default ${DEFAULT_SPIN_MS})`],
    ['-h, --help', 'this text'],
    ['--version', 'the versions of linkshell and Node'],
  ],
  notes: `Options are read as mm-link's getopt reads them: anywhere before "--" (also
after the traces and the COMMAND: "linkshell UP DOWN true --once" runs "true"
with --once), abbreviated to any unambiguous prefix (--uplink-queue-a=ARGS),
and a value may start with "-" (--delay -1 gets the range message). So a COMMAND
with options of its own goes after "--": linkshell UP DOWN -- ping -c 1 HOST.
"--" with nothing after it is no COMMAND ($SHELL with --netns).
Bare trace names are looked up in ./traces, $LINKSHELL_TRACES,
/usr/local/share/mahimahi/traces and /usr/share/mahimahi/traces.
mm-link's --meter-* flags are refused: log the direction and plot the log with
\`linkshell graph\`.

With -- COMMAND, linkshell runs COMMAND (no shell) with LINKSHELL_ADDR (where to
send) and LINKSHELL_PEER in its environment, passes SIGINT, SIGTERM and SIGHUP
on (the third such signal kills it) and exits with its status (128 + N if
signal N ended it, 127 if it could not be found); when COMMAND exits by
itself, what is still on the link is carried first (--drain). Without a
command it runs until SIGINT, SIGTERM or SIGHUP and exits with 0. Either way
it then completes its logs and prints a summary per direction on stderr; on a
terminal, a status line (rates, queue, delay) is kept up to date on stdout
meanwhile.
COMMAND runs in a process group of its own: signals reach the whole group (a
shell's background jobs too), and what is left of it ends when linkshell ends,
even when linkshell is killed (SIGKILL).
Bad arguments or input files: one line on stderr, exit status 2, nothing started.

What crosses the link: UDP datagrams sent to LINKSHELL_ADDR, and the answers
that come from the --connect address and port. Anything else bypasses the
emulated link unseen: TCP (iperf3's control connection, any TCP application),
a second port (RTCP on the RTP port + 1), datagrams sent to any other address.
Answers from another port of the peer's host are dropped, counted in the
summary and warned about once. Such applications need the transparent mode.

--netns, the transparent mode (as Mahimahi's shells): COMMAND (default $SHELL)
runs in a new network namespace whose only route leads through a TUN device;
linkshell carries every IPv4 packet (TCP, UDP, ICMP) between it and a second
TUN device on the host through the same uplink and downlink, with the same
logs (a packet counts its IP length plus the 4-byte TUN header, as Mahimahi's
logs do). Inside, MAHIMAHI_BASE is the host's address on the link (host
services listening there or on any address are reached there; as Mahimahi
sets it only when it is not set already, in nested shells it names the
outermost shell's host; nest with sudo -E; there is no NAT, so a nested
shell reaches its own host only), loopback is up, and DNS goes to a
forwarder on the host's address that answers from the host's resolver.
MAHIMAHI_SHELL_PREFIX gets this shell's "[delay 20 ms] [link] " (as
Mahimahi's shells word them, appended to an outer shell's) and
PROMPT_COMMAND puts it before bash's prompt. Under sudo, COMMAND runs as the
user who ran sudo (SUDO_UID, SUDO_GID and that user's groups, HOME, USER,
LOGNAME; through setpriv), as Mahimahi's setuid tools run it as the real
user; run as root without sudo, it stays root. It needs root (CAP_NET_ADMIN
and CAP_SYS_ADMIN), /dev/net/tun and
iproute2; when one is missing it says which, exits with status 2 and starts
nothing (the relay mode needs none of them). No qdisc is used: delay, loss
and rate are linkshell's own stages. However linkshell ends (SIGKILL
included), the namespace, both devices and COMMAND's processes go with it.
Names and addresses are chosen per run, so runs side by side do not collide.

Subcommands (each has --help):
  linkshell replay --log-in IN.log --trace TRACE [...]   re-run a recorded load on an emulated link
  linkshell stats LOG...                                  summary figures of mm-link logs
  linkshell graph LOG... [--out FILE.svg|FILE.html]       Mahimahi's throughput and delay graphs
  linkshell gen-trace KIND [...]                          write a synthetic trace`,
});

export type ParsedCommandLine = { help: true } | { help: false; config: LinkshellConfig };

/** Either mode's command line. */
export type ParsedModeCommandLine = { help: true } | { help: false; mode: 'relay'; config: LinkshellConfig } | { help: false; mode: 'netns'; config: NetnsConfig };

const SEE_HELP = '(see linkshell --help)';

/** Parses the relay mode's arguments (without the program name); throws a bad-argument error (usageError), also for --netns. */
export function parseLinkshellArgs(argv: readonly string[]): ParsedCommandLine {
  const parsed = parseLinkshellCommandLine(argv);
  if (parsed.help) return parsed;
  if (parsed.mode !== 'relay') throw usageError(`--netns is not the relay mode ${SEE_HELP}`);
  return { help: false, config: parsed.config };
}

/** Parses linkshell's arguments (without the program name), either mode; throws a bad-argument error (usageError). */
export function parseLinkshellCommandLine(argv: readonly string[]): ParsedModeCommandLine {
  const { values, operands, traceOption } = parseOptions(argv);
  if (values.help) return { help: true };
  const netns = values.netns ?? false;
  const { traces, command } = tracesAndCommand(values.trace, operands, traceOption);
  const addresses = netns ? netnsRefusesRelayOptions(values) : addressOptions(values);
  const link = linkOptions(values, netns);
  const timing = timingOptions(values);
  if (values.drain !== undefined && !netns && command === undefined) {
    throw usageError(`--drain applies to a COMMAND's end; without one linkshell runs until a signal ends it, and then stops at once ${SEE_HELP}`);
  }
  const logs = logOptions(values);
  refuseOutputsOverInputs(
    [
      logs.uplinkLog === undefined ? undefined : { role: '--uplink-log', path: logs.uplinkLog },
      logs.downlinkLog === undefined ? undefined : { role: '--downlink-log', path: logs.downlinkLog },
      logs.summaryJson === undefined ? undefined : { role: '--summary-json', path: logs.summaryJson },
    ],
    traceInputs(values.trace !== undefined, traces),
  );
  const path: NetnsConfig = {
    ...traces,
    ...link,
    ...timing,
    ...logs,
    seed: String(seedValue('seed', values.seed ?? '1')),
    command,
  };
  if (addresses === undefined) return { help: false, mode: 'netns', config: path };
  const maxSources = optional(values['max-sources'], (t) => integerValue('max-sources', t, { min: 1, max: 65535 })) ?? DEFAULT_MAX_FLOWS;
  return { help: false, mode: 'relay', config: { ...path, ...addresses, maxSources } };
}

const OPTIONS = {
  trace: { type: 'string' },
  listen: { type: 'string' },
  connect: { type: 'string' },
  'uplink-queue': { type: 'string' },
  'downlink-queue': { type: 'string' },
  'uplink-queue-args': { type: 'string' },
  'downlink-queue-args': { type: 'string' },
  once: { type: 'boolean' },
  drain: { type: 'string' },
  mtu: { type: 'string' },
  delay: { type: 'string' },
  'uplink-loss': { type: 'string' },
  'downlink-loss': { type: 'string' },
  'uplink-loss-at': { type: 'string' },
  'downlink-loss-at': { type: 'string' },
  seed: { type: 'string' },
  'uplink-log': { type: 'string', short: 'u' },
  'downlink-log': { type: 'string', short: 'd' },
  'summary-json': { type: 'string' },
  overhead: { type: 'string' },
  'memory-cap': { type: 'string' },
  'max-sources': { type: 'string' },
  spin: { type: 'string' },
  timer: { type: 'string' },
  'trace-clock-start': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  netns: { type: 'boolean' },
  'uplink-onoff': { type: 'string' },
  'downlink-onoff': { type: 'string' },
  'uplink-intermittent': { type: 'string' },
  'downlink-intermittent': { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];

const COMMAND_HINT = 'a COMMAND\'s own options go after "--": linkshell UP DOWN [options] -- COMMAND ARGS...';

/**
 * mm-link's getopt_long reading (src/common/command-line.ts): options anywhere
 * before "--" are linkshell's, abbreviations included; the operands, then
 * what follows "--", are the traces and the COMMAND. `traceOption`: --trace
 * was given after the first operand.
 */
function parseOptions(argv: readonly string[]): { values: Values; operands: string[]; traceOption: 'none' | 'first' | 'late' } {
  const dashes = argv.indexOf('--');
  rejectMeterFlags(dashes < 0 ? argv : argv.slice(0, dashes));
  const tokens = tokenize(argv, OPTIONS, { help: 'linkshell --help', alsoKnown: ['version'], unknownHint: (before) => (before >= 1 ? COMMAND_HINT : undefined) });
  const { values } = parseCommandLine('linkshell --help', { args: tokens.options, options: OPTIONS, strict: true });
  const traceIndex = tokens.options.findIndex((o) => o.startsWith('--trace='));
  const traceOption = traceIndex < 0 ? 'none' : traceIndex < tokens.optionsBeforeFirstOperand ? 'first' : 'late';
  return { values, operands: [...tokens.operands, ...(tokens.afterDashes ?? [])], traceOption };
}

/**
 * UPLINK_TRACE DOWNLINK_TRACE (or --trace TRACE for both), then the COMMAND:
 * the operands after the traces, as mm-link takes them. Nothing after the
 * traces, "--" included, is no COMMAND ($SHELL with --netns, as mm-link).
 */
function tracesAndCommand(
  trace: string | undefined,
  operands: string[],
  traceOption: 'none' | 'first' | 'late',
): { traces: Pick<LinkshellConfig, 'uplinkTrace' | 'downlinkTrace'>; command: string[] | undefined } {
  let uplinkTrace: string;
  let downlinkTrace: string;
  let rest: string[];
  if (trace !== undefined) {
    if (traceOption === 'late') throw usageError(`--trace replaces the two trace arguments, but ${JSON.stringify(operands[0])} was given too ${SEE_HELP}`);
    uplinkTrace = downlinkTrace = trace;
    rest = operands;
  } else if (operands.length >= 2) {
    [uplinkTrace, downlinkTrace] = operands as [string, string];
    rest = operands.slice(2);
  } else {
    throw usageError(`missing ${operands.length === 0 ? 'UPLINK_TRACE and DOWNLINK_TRACE' : 'DOWNLINK_TRACE'} (or --trace TRACE) ${SEE_HELP}`);
  }
  if (uplinkTrace === '' || downlinkTrace === '') throw usageError('empty trace name');
  if (rest.length > 0 && rest[0] === '') throw usageError('empty COMMAND');
  return { traces: { uplinkTrace, downlinkTrace }, command: rest.length > 0 ? rest : undefined };
}

/** The trace files the traces name (a name looked up as linkshell will look it up). */
function traceInputs(option: boolean, traces: Pick<LinkshellConfig, 'uplinkTrace' | 'downlinkTrace'>): NamedFile[] {
  const file = (name: string) => traceFile(name);
  return option
    ? [{ role: '--trace', path: file(traces.uplinkTrace) }]
    : [{ role: 'UPLINK_TRACE', path: file(traces.uplinkTrace) }, { role: 'DOWNLINK_TRACE', path: file(traces.downlinkTrace) }];
}

function addressOptions(values: Values): Pick<LinkshellConfig, 'listen' | 'connect'> {
  if (values.connect === undefined) throw usageError(`--connect HOST:PORT (the outside peer) is required (or --netns) ${SEE_HELP}`);
  return {
    connect: hostPortValue('connect', values.connect, { portZero: false }),
    listen: hostPortValue('listen', values.listen ?? '127.0.0.1:0'),
  };
}

/** With --netns, the relay's own options have no meaning: refused, not ignored. */
function netnsRefusesRelayOptions(values: Values): undefined {
  for (const name of ['connect', 'listen', 'max-sources'] as const) {
    if (values[name] !== undefined) throw usageError(`--${name} belongs to the relay mode: with --netns, COMMAND reaches the host at $MAHIMAHI_BASE ${SEE_HELP}`);
  }
  return undefined;
}

type LinkFields =
  | 'uplinkQueue' | 'uplinkQueueArgs' | 'downlinkQueue' | 'downlinkQueueArgs' | 'once' | 'mtu' | 'overheadBytes' | 'delayMs' | 'uplinkLoss' | 'downlinkLoss' | 'uplinkLossAt' | 'downlinkLossAt'
  | 'uplinkOnOff' | 'downlinkOnOff' | 'memoryCapBytes';

/** The emulated link: queues, MTU, overhead, delay, loss, on/off, memory. */
function linkOptions(values: Values, netns: boolean): Pick<LinkshellConfig, LinkFields> {
  const mtu = optional(values.mtu, (t) => integerValue('mtu', t, { min: 1, max: 65535 + 64 })) ?? DEFAULT_MTU;
  const overheadBytes = optional(values.overhead, (t) => integerValue('overhead', t, { min: 0, max: 4096 })) ?? (netns ? NETNS_OVERHEAD_BYTES : DEFAULT_OVERHEAD_BYTES);
  if (overheadBytes >= mtu) throw usageError(`--overhead ${overheadBytes} leaves no room for a payload in an MTU of ${mtu} bytes`);
  // A TUN device's MTU (the largest IP packet it carries) is 68 bytes or more.
  if (netns && mtu - overheadBytes < 68) throw usageError(`--mtu ${mtu} with --overhead ${overheadBytes} leaves ${mtu - overheadBytes} bytes for an IP packet; --netns needs at least 68`);
  const uplinkQueue = values['uplink-queue'] ?? 'infinite';
  const downlinkQueue = values['downlink-queue'] ?? 'infinite';
  const uplinkQueueArgs = values['uplink-queue-args'] ?? '';
  const downlinkQueueArgs = values['downlink-queue-args'] ?? '';
  checkQueue('uplink', uplinkQueue, uplinkQueueArgs);
  checkQueue('downlink', downlinkQueue, downlinkQueueArgs);
  const memoryCapMiB = optional(values['memory-cap'], (t) => integerValue('memory-cap', t, { min: 1, max: 1 << 20 })) ?? DEFAULT_MEMORY_CAP_MIB;
  return {
    uplinkQueue,
    uplinkQueueArgs,
    downlinkQueue,
    downlinkQueueArgs,
    once: values.once ?? false,
    mtu,
    overheadBytes,
    // As mm-delay: whole milliseconds.
    delayMs: optional(values.delay, (t) => integerValue('delay', t, { min: 0, max: LIMITS.maxDelayMs })) ?? 0,
    uplinkLoss: probabilityValue('uplink-loss', values['uplink-loss'] ?? '0'),
    downlinkLoss: probabilityValue('downlink-loss', values['downlink-loss'] ?? '0'),
    uplinkLossAt: nameValue('uplink-loss-at', values['uplink-loss-at'] ?? 'entry', LOSS_PLACES),
    downlinkLossAt: nameValue('downlink-loss-at', values['downlink-loss-at'] ?? 'entry', LOSS_PLACES),
    uplinkOnOff: onOffOrIntermittent(values, 'uplink'),
    downlinkOnOff: onOffOrIntermittent(values, 'downlink'),
    memoryCapBytes: memoryCapMiB * 1024 * 1024,
  };
}

/** A direction's --DIR-onoff (mm-onoff) or --DIR-intermittent (mm-intermittent): one of them. */
function onOffOrIntermittent(values: Values, direction: 'uplink' | 'downlink'): LinkshellConfig['uplinkOnOff'] {
  const onOff = values[`${direction}-onoff`];
  const intermittent = values[`${direction}-intermittent`];
  if (onOff !== undefined && intermittent !== undefined) throw usageError(`--${direction}-onoff and --${direction}-intermittent both switch the ${direction}: give one`);
  return intermittent !== undefined ? onOffValue(`${direction}-intermittent`, intermittent, { periodic: true }) : onOffValue(`${direction}-onoff`, onOff);
}

function timingOptions(values: Values): Pick<LinkshellConfig, 'timer' | 'spinMs' | 'traceClockStart' | 'drainMs'> {
  const traceClockStart = nameValue('trace-clock-start', values['trace-clock-start'] ?? 'now', TRACE_CLOCK_STARTS);
  const timer = nameValue('timer', values.timer ?? 'timeout', TIMER_KINDS);
  const spinMs = optional(values.spin, (t) => numberValue('spin', t, { min: 0, max: 100 })) ?? DEFAULT_SPIN_MS;
  if (values.spin !== undefined && timer !== 'timeout') throw usageError('--spin applies to --timer timeout only');
  const drainMs = optional(values.drain, (t) => integerValue('drain', t, { min: 0, max: MAX_DRAIN_MS })) ?? DEFAULT_DRAIN_MS;
  return { timer, spinMs, traceClockStart, drainMs };
}

/**
 * A file linkshell writes while COMMAND runs: not "-", since standard output is COMMAND's (and
 * the live status line's); without this a file named "-" was written.
 */
function runFileValue(name: string, text: string): string {
  if (text === '-') throw usageError(`--${name} needs a file name: standard output is the COMMAND's while linkshell runs (name a file, or /dev/stdout to mix them)`);
  return pathValue(name, text);
}

function logOptions(values: Values): Pick<LinkshellConfig, 'uplinkLog' | 'downlinkLog' | 'summaryJson'> {
  const uplinkLog = optional(values['uplink-log'], (t) => runFileValue('uplink-log', t));
  const downlinkLog = optional(values['downlink-log'], (t) => runFileValue('downlink-log', t));
  if (uplinkLog !== undefined && uplinkLog === downlinkLog) {
    throw usageError(`--uplink-log and --downlink-log name the same file ${JSON.stringify(uplinkLog)}`);
  }
  const summaryJson = optional(values['summary-json'], (t) => runFileValue('summary-json', t));
  if (summaryJson !== undefined && (summaryJson === uplinkLog || summaryJson === downlinkLog)) {
    throw usageError(`--summary-json and a log name the same file ${JSON.stringify(summaryJson)}`);
  }
  return { uplinkLog, downlinkLog, summaryJson };
}

function checkQueue(direction: string, kind: string, args: string): void {
  queueOption(`${direction}-queue`, kind, args);
}
