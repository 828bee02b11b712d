// An endpoint context that counts the work (encodes, decodes, frame reads)
// under way, so that a live endpoint can wait for it before it ends its records.
import type { EndpointContext } from '../../net/endpoint.ts';

export function countingWork(ctx: EndpointContext): EndpointContext & { busy(): number } {
  let pending = 0;
  return {
    now: () => ctx.now(),
    setTimer: (ms, callback) => ctx.setTimer(ms, callback),
    send: (bytes) => ctx.send(bytes),
    onReceive: (handler) => ctx.onReceive(handler),
    work: <T>(task: () => Promise<T>, modelledMs: number): Promise<T> => {
      pending++;
      return ctx.work(task, modelledMs).finally(() => pending--);
    },
    busy: () => pending,
  };
}
