// The COMMAND after "--": started without a shell, with the link's addresses
// in its environment; its end gives linkshell's exit status.

import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

export interface ChildCommand {
  readonly pid: number | undefined;
  /** Settles with the exit status to pass on: the child's code, 128 + signal number if a signal ended it, 127/126 if it could not start. */
  readonly exited: Promise<number>;
  /** True until the child has ended (or failed to start). */
  running(): boolean;
  /** Sends a signal to the child if it is still running. */
  signal(signal: NodeJS.Signals): void;
}

export function startChild(command: readonly string[], env: NodeJS.ProcessEnv, warn: (message: string) => void): ChildCommand {
  const [file, ...args] = command;
  let child: ChildProcess;
  let alive = true;
  const exited = new Promise<number>((resolve) => {
    child = spawn(file, args, { stdio: 'inherit', env, shell: false });
    child.on('error', (error: NodeJS.ErrnoException) => {
      // A child without a pid never started (no 'exit' will follow); other errors come from kill() on a child that is ending.
      if (!alive || child.pid !== undefined) return;
      alive = false;
      const code = error.code === 'ENOENT' ? 127 : 126;
      warn(`cannot start ${JSON.stringify(file)}: ${error.code === 'ENOENT' ? 'command not found' : error.code === 'EACCES' ? 'permission denied' : error.message}`);
      resolve(code);
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
      if (!alive) return;
      try {
        child.kill(signal);
      } catch {
        // Already gone: 'exit' is on its way.
      }
    },
  };
}
