// `linkshell UPLINK DOWNLINK --connect HOST:PORT [options] [-- COMMAND...]`
// and `linkshell --netns UPLINK DOWNLINK [options] [--] [COMMAND...]`: parses the arguments, starts the session (and the command, if any), waits
// for the end (the command's exit, SIGINT/SIGTERM, or an internal error),
// lets the link carry what is still on it after the command's own exit
// (--drain), then shuts down cleanly and prints the summary. Returns the exit status:
// 2 for bad arguments (nothing started), the command's status when there is
// one, 0 when stopped by a signal without a command, 2 when a log file cannot
// be written (a full disk: the run stops), 1 on an internal error.

import { errorCodeOf, exitStatusOf, oneLine, toolkitError } from '../common/errors.ts';
import { asInvokingUser, invokingUser, shellEnvironment, shellPrefix } from './mahimahi-shell.ts';
import { formatAddress } from '../net/address.ts';
import { cannotRun, startChild, type ChildCommand } from '../linkshell/child.ts';
import { startNetnsSession } from '../linkshell/netns-session.ts';
import { LINKSHELL_HELP, parseLinkshellCommandLine, type ParsedModeCommandLine } from './linkshell-options.ts';
import { startLinkshell, type RunningLink } from '../linkshell/session.ts';
import { DRAIN_QUIET_MS } from '../linkshell/config.ts';
import { formatSummary, StatusLine } from '../linkshell/summary.ts';
import { openTrace } from '../link-emu/trace-files.ts';
import { SummaryJsonFile } from '../linkshell/summary-json-file.ts';
import { formatVerdict, runVerdict } from '../linkshell/verdict.ts';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** After this many stop signals the command is killed outright. */
const SIGNALS_BEFORE_KILL = 3;
const STATUS_INTERVAL_MS = 500;

export async function runLinkshell(argv: string[]): Promise<number> {
  // A closed stdout or stderr (linkshell ... | head) must not cut the run short: the logs still get completed.
  // (The handlers stay: the error of a last write arrives after the return.)
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.listeners('error').includes(ignoreOutputError)) stream.on('error', ignoreOutputError);
  }
  return run(argv);
}

function ignoreOutputError(): void {}

async function run(argv: string[]): Promise<number> {
  const stderr = (line: string) => process.stderr.write(`linkshell: ${line}\n`);
  let session: RunningLink;
  let banner: string;
  let launch: (() => ChildCommand) | undefined;
  let traceEndMs = Infinity;
  let drainMs = 0;
  let summaryJson: SummaryJsonFile | undefined;
  try {
    const parsed = parseLinkshellCommandLine(argv);
    if (parsed.help) {
      process.stdout.write(LINKSHELL_HELP);
      return 0;
    }
    drainMs = parsed.config.drainMs;
    if (parsed.config.once) traceEndMs = Math.min(openTrace(parsed.config.uplinkTrace).period, openTrace(parsed.config.downlinkTrace).period);
    // Opened before anything starts, so that a path that cannot be written is a bad argument, not a lost summary.
    if (parsed.config.summaryJson !== undefined) summaryJson = SummaryJsonFile.open(parsed.config.summaryJson);
    ({ session, banner, launch } = await start(parsed, argv, stderr));
  } catch (error) {
    summaryJson?.discard();
    stderr(oneLine(error));
    return exitStatusOf(error);
  }

  let child: ChildCommand | undefined;
  // What ended the run first: COMMAND by itself, or else (a signal, --once, an internal error).
  let endedBy: 'command' | 'other' | undefined;
  let finish!: (code: number, by?: 'command') => void;
  const ended = new Promise<number>((resolve) => {
    finish = (code, by) => {
      endedBy ??= by ?? 'other';
      resolve(code);
    };
  });
  // Settles when a stop is asked for once COMMAND has gone: it cuts a drain short.
  let stopNow!: () => void;
  const stopAsked = new Promise<void>((resolve) => (stopNow = resolve));
  // Handlers first: whoever reads the line below may signal at once.
  let signalsSeen = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signalsSeen++;
    if (child?.running()) child.signal(signalsSeen >= SIGNALS_BEFORE_KILL ? 'SIGKILL' : signal);
    else {
      finish(0);
      stopNow();
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  // SIGUSR1 ends MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL's passthrough, as in Mahimahi's shells, and is ignored otherwise
  // (as there); the listener also keeps Node from opening its debugger on SIGUSR1.
  const onUsr1 = () => {
    if (session.endPassthrough()) stderr(`SIGUSR1 at ${(session.now() / 1000).toFixed(3)} s: passthrough ended, datagrams cross the emulated link from now on`);
  };
  process.on('SIGUSR1', onUsr1);

  stderr(banner);
  if (launch) {
    child = launch();
    void child.exited.then((code) => finish(code, 'command'));
  }

  // --once: the run ends when a trace does, as mm-link's shell does (its link delivers nothing after).
  const onceTimer = Number.isFinite(traceEndMs)
    ? setTimeout(() => {
        stderr(`the trace ended (--once) after ${traceEndMs} ms: stopping`);
        finish(0);
        stopNow();
      }, Math.max(0, traceEndMs - session.now()))
    : undefined;

  let fatal: Error | undefined;
  session.onFatal((error) => {
    fatal = error;
    finish(1);
    stopNow();
  });

  const status = process.stdout.isTTY ? new StatusLine() : undefined;
  const statusTimer = status
    ? setInterval(() => process.stdout.write(`\r\x1b[K${status.line(session.now(), session.report().directions)}`), STATUS_INTERVAL_MS)
    : undefined;

  let code = await ended;
  if (statusTimer) clearInterval(statusTimer);
  if (status) process.stdout.write('\r\x1b[K');
  if (child?.running()) {
    // The run ends before the command (a --once trace's end, an internal error): end the command too.
    child.signal('SIGTERM');
    const killTimer = setTimeout(() => child!.signal('SIGKILL'), 5000);
    await child.exited;
    clearTimeout(killTimer);
  }
  // What the command left running in its process group (a shell's background jobs) ends with the run;
  // the watchdog (src/linkshell/child.ts) kills whatever ignores this once linkshell has gone.
  child?.signal('SIGTERM');
  if (endedBy === 'command' && drainMs > 0) await drainLink(session, drainMs, stopAsked, stderr);
  if (onceTimer) clearTimeout(onceTimer);
  const report = await session.stop();
  if (fatal && errorCodeOf(fatal) !== 'ERR_INTERNAL') {
    // The caller's to fix (a log that cannot be written: a full disk): the file and why, in one line.
    stderr(`${fatal.message}; stopped`);
    code = exitStatusOf(fatal);
  } else if (fatal) {
    stderr(`internal error, stopped: ${fatal.stack ?? fatal.message}`);
    code = 1;
  }
  process.stderr.write(formatSummary(report) + formatVerdict(runVerdict(report)));
  if (summaryJson !== undefined) {
    try {
      summaryJson.write(report);
    } catch (error) {
      stderr(oneLine(error));
      code = code === 0 ? exitStatusOf(error) : code;
    }
  }
  for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  process.off('SIGUSR1', onUsr1);
  return code;
}

/**
 * After COMMAND's own exit, lets what is still on the link arrive (--drain): its last datagrams, and with
 * --netns what the namespace's kernel still sends for the sockets it closed (a TCP connection's last bytes,
 * its FIN). mm-link stops at once instead. Says what was dropped when the drain ran out of time.
 */
async function drainLink(session: RunningLink, maxMs: number, stopAsked: Promise<void>, stderr: (line: string) => void): Promise<void> {
  let interrupted = false;
  const outcome = await session.drain(
    maxMs,
    DRAIN_QUIET_MS,
    stopAsked.then(() => (interrupted = true)),
  );
  if (outcome.heldBytes > 0 && !interrupted) {
    stderr(`COMMAND has exited, and after --drain ${maxMs} ms the link still held ${outcome.heldBytes} bytes: dropped (a longer --drain delivers them)`);
  }
}

/** The session's own variables but MAHIMAHI_BASE, which shellEnvironment sets only when the caller has none (nested shells). */
function withoutBase(env: Record<string, string>): Record<string, string> {
  const { MAHIMAHI_BASE: _base, ...rest } = env;
  return rest;
}

/** The session of the mode asked for, what to say when it runs, and how to start its command. */
async function start(
  parsed: Exclude<ParsedModeCommandLine, { help: true }>,
  argv: string[],
  stderr: (line: string) => void,
): Promise<{ session: RunningLink; banner: string; launch: (() => ChildCommand) | undefined }> {
  const sessionOptions = { warn: stderr, commandLine: ['linkshell', ...argv] };
  // Mahimahi's shells start in passthrough when this variable is set at all (getenv), empty included;
  // COMMAND inherits it, so nested shells start in passthrough too.
  const passthroughUntilSignal = process.env.MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL !== undefined;
  const passthroughNote = passthroughUntilSignal ? `; MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL is set: datagrams pass unemulated until SIGUSR1 (kill -USR1 ${process.pid})` : '';
  const user = invokingUser(process.env);
  // Under sudo COMMAND runs as the user who ran it (src/cli/mahimahi-shell.ts), through setpriv.
  if (user !== undefined && (parsed.config.command !== undefined || parsed.mode === 'netns') && cannotRun('setpriv', process.env.PATH) !== undefined) {
    throw toolkitError('ERR_UNAVAILABLE', `setpriv (util-linux) is needed to run COMMAND as the user who ran sudo (SUDO_UID ${user.uid}); install util-linux, or run linkshell as root without sudo`);
  }
  if (parsed.mode === 'netns') {
    const command = parsed.config.command ?? [process.env.SHELL || '/bin/sh'];
    const session = await startNetnsSession({ ...parsed.config, passthroughUntilSignal }, sessionOptions);
    const { namespace, hostAddress } = session.layout;
    const env = shellEnvironment({ ...process.env, ...withoutBase(session.environment()) }, hostAddress, shellPrefix(parsed.config), user);
    return {
      session,
      // The first part is read by src/webrtc/netns-sender.ts: keep its form.
      banner:
        `${JSON.stringify(command[0])} runs in network namespace ${namespace}; the host is MAHIMAHI_BASE=${hostAddress}` +
        (env.MAHIMAHI_BASE === hostAddress ? '' : `; inside, MAHIMAHI_BASE=${env.MAHIMAHI_BASE} (the outermost shell's host)`) +
        (user ? `; COMMAND runs as uid ${user.uid} (SUDO_UID)` : '') +
        passthroughNote,
      launch: () => launchAs(command, user, env, stderr, (c) => session.commandLine(c)),
    };
  }
  const session = await startLinkshell({ ...parsed.config, passthroughUntilSignal }, sessionOptions);
  const addr = formatAddress(session.listenAddress);
  const peer = formatAddress(session.peerAddress);
  const command = parsed.config.command;
  return {
    session,
    banner: `inside applications send to ${addr}; the peer is ${peer}${passthroughNote}`,
    launch: command ? () => launchAs(command, user, { ...process.env, LINKSHELL_ADDR: addr, LINKSHELL_PEER: peer }, stderr, (c) => [...c]) : undefined,
  };
}

/**
 * Starts COMMAND, as the user who ran sudo when there is one (asInvokingUser), through `wrap`
 * (ip netns exec). A missing COMMAND is checked here, so that it gets linkshell's own message and
 * status (not setpriv's or ip netns exec's).
 */
function launchAs(command: readonly string[], user: { uid: number; gid: number } | undefined, env: NodeJS.ProcessEnv, stderr: (line: string) => void, wrap: (command: readonly string[]) => string[]): ChildCommand {
  const problem = cannotRun(command[0]!, env.PATH);
  if (problem !== undefined) {
    stderr(`cannot start ${JSON.stringify(command[0])}: ${problem === 127 ? 'command not found' : 'permission denied'}`);
    return { pid: undefined, exited: Promise.resolve(problem), running: () => false, signal: () => {} };
  }
  return startChild(wrap(asInvokingUser(command, user)), env, stderr);
}
