// A Node program of this repository (bin/*.js) as a child of the bench:
// killed with the bench even by SIGKILL (setpriv --pdeathsig), its stderr
// kept, stopped with SIGINT (its clean stop) and SIGKILL after a grace time.
import { spawn } from 'node:child_process';

export interface NodeChild {
  readonly pid: number | undefined;
  /** Its stderr so far. */
  output(): string;
  /** Resolves with its exit status (null if killed by a signal or not started). */
  readonly exited: Promise<number | null>;
  /** True once it exited. */
  done(): boolean;
  /** Calls `listener` after each chunk of stderr and once when it exits; returns the function that unsubscribes. */
  onChange(listener: () => void): () => void;
  /** SIGINT, then SIGKILL after `graceMs` (default 10 s); resolves with its exit status. */
  stop(graceMs?: number): Promise<number | null>;
}

export function startNodeChild(bin: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): NodeChild {
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', process.execPath, bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
    changed();
  });
  let finished = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      finished = true;
      resolve(code);
      changed();
    });
    child.once('error', () => {
      finished = true;
      resolve(null);
      changed();
    });
  });
  return {
    pid: child.pid,
    output: () => stderr,
    exited,
    done: () => finished,
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: async (graceMs = 10_000) => {
      if (finished) return exited;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Resolves with the first match of `pattern` in the child's stderr; rejects if it exits first or after `timeoutMs`. */
export function waitForOutput(child: NodeChild, pattern: RegExp, what: string, timeoutMs: number, signal?: AbortSignal): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const lastLine = () => child.output().trim().split('\n').filter((l) => !/running the TypeScript sources/.test(l)).pop() ?? '';
    const finish = (fn: () => void) => {
      unsubscribe();
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => finish(() => reject(signal!.reason));
    const check = () => {
      const m = pattern.exec(child.output());
      if (m) finish(() => resolve(m));
      else if (child.done()) finish(() => reject(new Error(`${what} exited before it was ready: ${lastLine()}`)));
    };
    const unsubscribe = child.onChange(check);
    const timer = setTimeout(() => finish(() => reject(new Error(`${what} was not ready within ${timeoutMs} ms: ${lastLine()}`))), timeoutMs);
    if (signal?.aborted) onAbort();
    else {
      signal?.addEventListener('abort', onAbort, { once: true });
      check(); // what it wrote before we listened
    }
  });
}
