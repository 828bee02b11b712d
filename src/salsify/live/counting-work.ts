// An endpoint context that counts the work (encodes, decodes, frame reads)
// under way, so that a live endpoint can wait for it before it ends its
// records, and tells listeners each time a task ends (after the code awaiting
// it has run), so that the endpoint can wait for events instead of polling.
import type { EndpointContext } from '../../net/endpoint.ts';
import { withWork } from './with-work.ts';

export interface CountingWork extends EndpointContext {
  busy(): number;
  /** Calls `listener` after each task ends, with its error if it failed. */
  onTaskEnd(listener: (error?: unknown) => void): void;
}

export function countingWork(ctx: EndpointContext): CountingWork {
  let pending = 0;
  const listeners: ((error?: unknown) => void)[] = [];
  // setImmediate: after the awaiting code's continuation (microtasks) has run.
  const ended = (error?: unknown) => setImmediate(() => {
    for (const l of listeners) l(error);
  });
  const counted = withWork(ctx, <T>(task: () => Promise<T>, modelledMs: number): Promise<T> => {
    pending++;
    return ctx.work(task, modelledMs).then(
      (value) => {
        pending--;
        ended();
        return value;
      },
      (error: unknown) => {
        pending--;
        ended(error);
        throw error;
      },
    );
  });
  return { ...counted, busy: () => pending, onTaskEnd: (listener) => listeners.push(listener) };
}
