// The COMMAND after "--", with the link's addresses in its environment; its
// end gives linkshell's exit status.
//
// The command runs in a process group of its own (a new session, as Node's
// `detached` gives it), and linkshell signals the whole group: with
// `-- sh -c 'a & b'` the shell's children end with it. The command must not
// outlive linkshell either, even when linkshell is killed outright
// (SIGKILL): a parent-death signal (prctl PR_SET_PDEATHSIG) would reach only
// the direct child, not a shell's children. So the command is started by a
// small POSIX-shell launcher that first puts a watchdog in the background, in
// the same process group, then replaces itself with the command (same pid,
// so linkshell still sees the command's own exit status). The watchdog holds
// one end of a socket pair whose other end only linkshell holds; when
// linkshell ends, however it ends, the kernel closes that end, the watchdog
// reads end-of-file and ends the group: SIGTERM, then SIGKILL a moment
// later (itself included). The watchdog ignores the stop signals linkshell
// sends to the group, so it stays until linkshell itself is gone.
//
// Without a shell in between, the command is the file named: it is looked
// up in PATH here first, so that a missing command still gets linkshell's
// own one-line message and status 127 (126 if it cannot be run).

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Socket } from 'node:net';

export interface ChildCommand {
  /** The command's pid, which is also its process group's id (undefined if it never started). */
  readonly pid: number | undefined;
  /** Settles with the exit status to pass on: the child's code, 128 + signal number if a signal ended it, 127/126 if it could not start. */
  readonly exited: Promise<number>;
  /** True until the child has ended (or failed to start). */
  running(): boolean;
  /** Sends a signal to the command's whole process group (also after the command itself has ended: its background children). */
  signal(signal: NodeJS.Signals): void;
}

/** How long the watchdog waits between SIGTERM and SIGKILL once linkshell has ended (seconds). */
export const WATCHDOG_GRACE_S = 1;

// $0 is "linkshell-launcher", "$@" the command. fd 3 is the socket pair's end:
// the watchdog keeps it, the command does not get it.
const LAUNCHER = [
  `(trap '' HUP INT QUIT TERM; cat <&3 >/dev/null 2>&1; kill -TERM 0 2>/dev/null; sleep ${WATCHDOG_GRACE_S}; kill -KILL 0) >/dev/null 2>&1 </dev/null &`,
  'exec "$@" 3<&-',
].join('\n');

export function startChild(command: readonly string[], env: NodeJS.ProcessEnv, warn: (message: string) => void): ChildCommand {
  const [file, ...args] = command;
  const problem = cannotRun(file, env.PATH);
  if (problem !== undefined) {
    warn(`cannot start ${JSON.stringify(file)}: ${problem === 127 ? 'command not found' : 'permission denied'}`);
    return { pid: undefined, exited: Promise.resolve(problem), running: () => false, signal: () => {} };
  }
  let child: ChildProcess;
  let alive = true;
  const exited = new Promise<number>((resolve) => {
    child = spawn('/bin/sh', ['-c', LAUNCHER, 'linkshell-launcher', file, ...args], {
      stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
      env,
      detached: true,
    });
    // linkshell's end of the watchdog's socket pair: held open, never read, not keeping linkshell running.
    const watchdogEnd = child.stdio[3] as Socket | null;
    watchdogEnd?.on('error', () => {});
    watchdogEnd?.unref();
    child.on('error', (error: NodeJS.ErrnoException) => {
      // A child without a pid never started (no 'exit' will follow); other errors come from kill() on a child that is ending.
      if (!alive || child.pid !== undefined) return;
      alive = false;
      warn(`cannot start ${JSON.stringify(file)}: ${error.code ?? error.message}`);
      resolve(126);
    });
    child.once('exit', (code, signal) => {
      alive = false;
      if (code !== null) resolve(code);
      else resolve(128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
  return {
    get pid() {
      return child.pid;
    },
    exited,
    running: () => alive,
    signal: (signal) => {
      // The watchdog keeps the group (and so its id) in existence until linkshell ends.
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    },
  };
}

/** 127 if `file` names no executable file (as execvp would look it up in `path`), 126 if it cannot be executed, undefined if it can. */
export function cannotRun(file: string, path: string | undefined): 126 | 127 | undefined {
  const candidates = file.includes('/') ? [file] : (path ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).map((dir) => join(dir || '.', file));
  let found = false;
  for (const candidate of candidates) {
    try {
      // A directory given by path cannot be run (126); one found in PATH is skipped, as execvp does.
      if (!statSync(candidate).isFile() && !file.includes('/')) continue;
    } catch {
      continue;
    }
    found = true;
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, fsConstants.X_OK);
        return undefined;
      }
    } catch {
      // Not executable: look further, as execvp does.
    }
  }
  return found ? 126 : 127;
}
