// An endpoint context that counts the work (encodes, decodes, frame reads)
// under way, so that a live endpoint can wait for it before it ends its records.
import type { EndpointContext } from '../../net/endpoint.ts';
import { withWork } from './with-work.ts';

export function countingWork(ctx: EndpointContext): EndpointContext & { busy(): number } {
  let pending = 0;
  const counted = withWork(ctx, <T>(task: () => Promise<T>, modelledMs: number): Promise<T> => {
    pending++;
    return ctx.work(task, modelledMs).finally(() => pending--);
  });
  return { ...counted, busy: () => pending };
}
