// Over real sockets an endpoint's work takes as long as it takes; the model
// codec, though, computes a frame in microseconds where the codec it stands
// for (VP8) takes milliseconds. With this context the live endpoints give the
// model codec's work its modelled duration, as the simulator does: each
// encode or decode completes no sooner than `modelledMs` after it started.
import type { EndpointContext } from '../../net/endpoint.ts';
import { withWork } from './with-work.ts';

export function withModelledWorkTime(ctx: EndpointContext): EndpointContext {
  return withWork(ctx, <T>(task: () => Promise<T>, modelledMs: number): Promise<T> => {
    const started = ctx.now();
    return ctx.work(task, modelledMs).then((result) => {
      const left = started + modelledMs - ctx.now();
      if (!(left > 0)) return result;
      return new Promise<T>((resolve) => ctx.setTimer(left, () => resolve(result)));
    });
  });
}
