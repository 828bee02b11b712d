// A worker process of the eval's pool (`salsify eval --worker`, forked by
// pool.ts): it takes runs over its IPC channel one at a time, simulates each
// (execute.ts), writes the result into the store itself (atomically), and
// reports progress and completion. It ends when the channel closes (at once if
// a run is in progress: the parent is gone), and on Linux with its parent
// (pool.ts starts it with a parent-death signal).
import { errorCodeOf, oneLine } from '../common/errors.ts';
import { executeRun } from './execute.ts';
import type { EvalRun } from './run-list.ts';
import { writeStored } from './store.ts';

export type ToWorker = { readonly type: 'run'; readonly dir: string; readonly run: EvalRun };
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'progress'; readonly index: number; readonly videoS: number }
  | { readonly type: 'done'; readonly index: number }
  | { readonly type: 'failed'; readonly index: number; readonly message: string; readonly code: string };

export async function serveWorker(): Promise<number> {
  const send = process.send?.bind(process);
  if (!send) throw new Error('salsify eval --worker runs only as a child of salsify eval (it needs an IPC channel)');
  // Ctrl-C on a terminal signals the whole process group: the parent stops the
  // workers itself (SIGTERM), after it has seen the signal, so that a worker's
  // end is never taken for a failure.
  process.on('SIGINT', () => {});
  const tell = (m: FromWorker) => new Promise<void>((resolve) => send(m, undefined, {}, () => resolve()));
  let queue = Promise.resolve();
  let busy = false;
  // The parent closes the channel only when it has nothing more to give an idle worker: closed
  // mid-run, the parent is gone (killed), and the run is nobody's any more.
  process.once('disconnect', () => {
    if (busy) process.exit(1);
  });
  process.on('message', (message: ToWorker) => {
    if (message?.type !== 'run') return;
    busy = true;
    queue = queue.then(async () => {
      const { run, dir } = message;
      try {
        const text = await executeRun(run, (videoS) => void tell({ type: 'progress', index: run.index, videoS }));
        writeStored(dir, run.hash, text);
        await tell({ type: 'done', index: run.index });
      } catch (error) {
        await tell({ type: 'failed', index: run.index, message: oneLine(error), code: errorCodeOf(error) });
      } finally {
        busy = false;
      }
    });
  });
  await tell({ type: 'ready' });
  await new Promise<void>((resolve) => process.once('disconnect', resolve));
  await queue;
  return 0;
}
