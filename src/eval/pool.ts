// The pool of worker processes that runs an eval's runs locally: `jobs`
// processes (`salsify eval --worker`, worker.ts), each given the next run
// when it is free. Processes, not threads: each run has its own native codec
// addon and heap, and a stop signal ends them cleanly. Stopped (the
// AbortSignal), it ends every worker and removes their temporary files, so
// the store holds only whole results.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toolkitError, type ErrorCode } from '../common/errors.ts';
import type { EvalRun } from './run-list.ts';
import { tryLockRun, unlockRun } from './run-lock.ts';
import { readStored, removeTemporaries } from './store.ts';
import type { FromWorker, ToWorker } from './worker.ts';

export interface PoolEvents {
  started(run: EvalRun): void;
  progress(run: EvalRun, videoS: number): void;
  done(run: EvalRun): void;
}

export interface PoolOptions {
  readonly dir: string;
  readonly jobs: number;
  readonly events: PoolEvents;
  /** Aborted: stop every worker; runPool then resolves 'interrupted'. */
  readonly signal?: AbortSignal;
  /** A run found stored by another eval on the same directory (so not run here); events.done follows. */
  readonly onReused?: (run: EvalRun) => void;
}

/**
 * fork()'s options that make a worker die with this process, however it ends (SIGKILL included): on
 * Linux the worker's node is started through util-linux's setpriv with a parent-death signal
 * (PR_SET_PDEATHSIG, which Node cannot set itself); elsewhere the worker ends when its IPC channel
 * closes mid-run (worker.ts), which needs its event loop to turn.
 */
function diesWithParent(): { execPath?: string; execArgv: string[] } {
  const setpriv = SETPRIV_PATHS.find((p) => existsSync(p));
  return setpriv === undefined ? { execArgv: [] } : { execPath: setpriv, execArgv: ['--pdeathsig', 'KILL', process.execPath] };
}

const SETPRIV_PATHS = process.platform === 'linux' ? ['/usr/bin/setpriv', '/bin/setpriv'] : [];

/** How often a worker with only other evals' runs left looks for their results. */
const LOCK_POLL_MS = 500;

/** Whether `hash` has a whole result in the store (a corrupt entry does not count: it is run again). */
function isStored(dir: string, hash: string): boolean {
  return readStored(dir, hash, () => {}) !== undefined;
}

const SALSIFY_BIN = fileURLToPath(new URL('../../bin/salsify.js', import.meta.url));

/** Runs `runs` on the pool; rejects with the first run's failure (every worker stopped). */
export function runPool(runs: readonly EvalRun[], { dir, jobs, events, signal, onReused }: PoolOptions): Promise<'complete' | 'interrupted'> {
  return new Promise((resolve, reject) => {
    const workers = new Set<ChildProcess>();
    /** Workers told that there is nothing more to run: their exit is expected. */
    const released = new Set<ChildProcess>();
    /** Runs not yet given to a worker, in the list's order; those locked by another eval stay here until it is done with them. */
    const queue = [...runs];
    /** Workers with nothing to do while the queue holds only runs another eval is computing. */
    const idle: ChildProcess[] = [];
    let poll: NodeJS.Timeout | undefined;
    /** Hashes of the runs whose lock this eval holds. */
    const held = new Set<string>();
    let finished = 0;
    let ending = false;
    const byIndex = new Map(runs.map((r) => [r.index, r]));
    const finishOne = (run: EvalRun) => {
      events.done(run);
      if (++finished === runs.length) end(() => resolve('complete'));
    };

    const end = (outcome: () => void) => {
      if (ending) return;
      ending = true;
      clearTimeout(poll);
      signal?.removeEventListener('abort', onAbort);
      const exits = [...workers].map((w) => new Promise<void>((done) => {
        if (w.exitCode !== null || w.signalCode !== null) return done();
        w.once('exit', () => done());
        w.kill('SIGTERM');
        setTimeout(() => w.kill('SIGKILL'), 5000).unref();
      }));
      void Promise.all(exits).then(() => {
        for (const w of workers) if (w.pid !== undefined) removeTemporaries(dir, w.pid);
        for (const hash of held) unlockRun(dir, hash);
        outcome();
      });
    };
    const onAbort = () => end(() => resolve('interrupted'));
    const fail = (code: ErrorCode, message: string) => end(() => reject(toolkitError(code, message)));

    /** The next run this eval may compute (its lock taken); runs another eval stored meanwhile are done here too. */
    const take = (): EvalRun | undefined => {
      for (let i = 0; i < queue.length && !ending; i++) {
        const run = queue[i]!;
        if (isStored(dir, run.hash)) {
          queue.splice(i--, 1);
          onReused?.(run);
          finishOne(run);
        } else if (tryLockRun(dir, run.hash)) {
          queue.splice(i, 1);
          held.add(run.hash);
          return run;
        }
      }
      return undefined;
    };
    const give = (worker: ChildProcess) => {
      const run = take();
      if (ending) return;
      if (run !== undefined) {
        events.started(run);
        worker.send({ type: 'run', dir, run } satisfies ToWorker);
      } else if (queue.length === 0) {
        released.add(worker);
        worker.disconnect();
      } else {
        // Every run left is another eval's: look again for its result (or its lock gone) in a while.
        idle.push(worker);
        poll ??= setTimeout(() => {
          poll = undefined;
          for (const w of idle.splice(0)) give(w);
        }, LOCK_POLL_MS);
      }
    };

    const start = () => {
      const worker = fork(SALSIFY_BIN, ['eval', '--worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...diesWithParent() });
      workers.add(worker);
      worker.on('message', (m: FromWorker) => {
        if (ending) return;
        if (m.type === 'ready') give(worker);
        else if (m.type === 'progress') events.progress(byIndex.get(m.index)!, m.videoS);
        else if (m.type === 'done') {
          const run = byIndex.get(m.index)!;
          unlockRun(dir, run.hash);
          held.delete(run.hash);
          finishOne(run);
          if (!ending) give(worker);
        } else if (m.type === 'failed') fail(m.code as ErrorCode, `run ${byIndex.get(m.index)!.id}: ${m.message}`);
      });
      worker.on('error', (error) => fail('ERR_INTERNAL', `eval worker: ${error.message}`));
      worker.on('exit', (code, sig) => {
        if (!ending && !released.has(worker)) {
          fail('ERR_INTERNAL', `an eval worker (pid ${worker.pid}) ended (${sig ?? `exit status ${code}`}) before its runs were done`);
        }
      });
    };

    if (runs.length === 0) return resolve('complete');
    if (signal?.aborted) return resolve('interrupted');
    signal?.addEventListener('abort', onAbort, { once: true });
    for (let i = 0; i < Math.min(jobs, runs.length); i++) start();
  });
}
