// `linkshell UPLINK DOWNLINK --connect HOST:PORT [options] [-- COMMAND...]`:
// parses the arguments, starts the session (and the command, if any), waits
// for the end (the command's exit, SIGINT/SIGTERM, or an internal error),
// then shuts down cleanly and prints the summary. Returns the exit status:
// 2 for bad arguments (nothing started), the command's status when there is
// one, 0 when stopped by a signal without a command, 2 when a log file cannot
// be written (a full disk: the run stops), 1 on an internal error.

import { errorCodeOf, exitStatusOf, oneLine } from '../common/errors.ts';
import { formatAddress } from '../net/address.ts';
import { startChild, type ChildCommand } from '../linkshell/child.ts';
import { LINKSHELL_HELP, parseLinkshellArgs } from './linkshell-options.ts';
import { startLinkshell, type LinkshellSession } from '../linkshell/session.ts';
import { formatSummary, StatusLine } from '../linkshell/summary.ts';

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
  let session: LinkshellSession;
  let command: string[] | undefined;
  try {
    const parsed = parseLinkshellArgs(argv);
    if (parsed.help) {
      process.stdout.write(LINKSHELL_HELP);
      return 0;
    }
    command = parsed.config.command;
    session = await startLinkshell(parsed.config, { warn: stderr, commandLine: ['linkshell', ...argv] });
  } catch (error) {
    stderr(oneLine(error));
    return exitStatusOf(error);
  }

  let child: ChildCommand | undefined;
  let finish!: (code: number) => void;
  const ended = new Promise<number>((resolve) => (finish = resolve));
  // Handlers first: whoever reads the line below may signal at once.
  let signalsSeen = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signalsSeen++;
    if (child?.running()) child.signal(signalsSeen >= SIGNALS_BEFORE_KILL ? 'SIGKILL' : signal);
    else finish(0);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);

  const addr = formatAddress(session.listenAddress);
  const peer = formatAddress(session.peerAddress);
  stderr(`inside applications send to ${addr}; the peer is ${peer}`);
  if (command) {
    child = startChild(command, { ...process.env, LINKSHELL_ADDR: addr, LINKSHELL_PEER: peer }, stderr);
    void child.exited.then(finish);
  }

  let fatal: Error | undefined;
  session.onFatal((error) => {
    fatal = error;
    finish(1);
  });

  const status = process.stdout.isTTY ? new StatusLine() : undefined;
  const statusTimer = status
    ? setInterval(() => process.stdout.write(`\r\x1b[K${status.line(session.now(), session.report().directions)}`), STATUS_INTERVAL_MS)
    : undefined;

  let code = await ended;
  if (statusTimer) clearInterval(statusTimer);
  if (status) process.stdout.write('\r\x1b[K');
  if (child?.running()) {
    // The run ends before the command (an internal error): end the command too.
    child.signal('SIGTERM');
    const killTimer = setTimeout(() => child!.signal('SIGKILL'), 5000);
    await child.exited;
    clearTimeout(killTimer);
  }
  // What the command left running in its process group (a shell's background jobs) ends with the run;
  // the watchdog (src/linkshell/child.ts) kills whatever ignores this once linkshell has gone.
  child?.signal('SIGTERM');
  const report = await session.stop();
  if (fatal && errorCodeOf(fatal) !== 'ERR_INTERNAL') {
    // The caller's to fix (a log that cannot be written: a full disk): the file and why, in one line.
    stderr(`${fatal.message}; stopped`);
    code = exitStatusOf(fatal);
  } else if (fatal) {
    stderr(`internal error, stopped: ${fatal.stack ?? fatal.message}`);
    code = 1;
  }
  process.stderr.write(formatSummary(report));
  for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  return code;
}
