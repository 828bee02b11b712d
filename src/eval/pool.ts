// The pool of worker processes that runs an eval's runs locally: `jobs`
// processes (`salsify eval --worker`, worker.ts), each given the next run
// when it is free. Processes, not threads: each run has its own native codec
// addon and heap, and a stop signal ends them cleanly. Stopped (the
// AbortSignal), it ends every worker and removes their temporary files, so
// the store holds only whole results.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { toolkitError, type ErrorCode } from '../common/errors.ts';
import type { EvalRun } from './run-list.ts';
import { removeTemporaries } from './store.ts';
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
}

const SALSIFY_BIN = fileURLToPath(new URL('../../bin/salsify.js', import.meta.url));

/** Runs `runs` on the pool; rejects with the first run's failure (every worker stopped). */
export function runPool(runs: readonly EvalRun[], { dir, jobs, events, signal }: PoolOptions): Promise<'complete' | 'interrupted'> {
  return new Promise((resolve, reject) => {
    const workers = new Set<ChildProcess>();
    /** Workers told that there is nothing more to run: their exit is expected. */
    const released = new Set<ChildProcess>();
    let next = 0;
    let finished = 0;
    let ending = false;
    const byIndex = new Map(runs.map((r) => [r.index, r]));

    const end = (outcome: () => void) => {
      if (ending) return;
      ending = true;
      signal?.removeEventListener('abort', onAbort);
      const exits = [...workers].map((w) => new Promise<void>((done) => {
        if (w.exitCode !== null || w.signalCode !== null) return done();
        w.once('exit', () => done());
        w.kill('SIGTERM');
        setTimeout(() => w.kill('SIGKILL'), 5000).unref();
      }));
      void Promise.all(exits).then(() => {
        for (const w of workers) if (w.pid !== undefined) removeTemporaries(dir, w.pid);
        outcome();
      });
    };
    const onAbort = () => end(() => resolve('interrupted'));
    const fail = (code: ErrorCode, message: string) => end(() => reject(toolkitError(code, message)));

    const give = (worker: ChildProcess) => {
      if (next >= runs.length) {
        released.add(worker);
        worker.disconnect();
        return;
      }
      const run = runs[next++]!;
      events.started(run);
      worker.send({ type: 'run', dir, run } satisfies ToWorker);
    };

    const start = () => {
      const worker = fork(SALSIFY_BIN, ['eval', '--worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
      workers.add(worker);
      worker.on('message', (m: FromWorker) => {
        if (ending) return;
        if (m.type === 'ready') give(worker);
        else if (m.type === 'progress') events.progress(byIndex.get(m.index)!, m.videoS);
        else if (m.type === 'done') {
          events.done(byIndex.get(m.index)!);
          if (++finished === runs.length) end(() => resolve('complete'));
          else give(worker);
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
