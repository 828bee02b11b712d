// An endpoint context that is `ctx` in everything but how it runs work: the
// base of the live endpoints' context wrappers (counting, modelled time).
import type { EndpointContext } from '../../net/endpoint.ts';

export function withWork(ctx: EndpointContext, work: EndpointContext['work']): EndpointContext {
  return {
    now: () => ctx.now(),
    setTimer: (ms, callback) => ctx.setTimer(ms, callback),
    send: (bytes) => ctx.send(bytes),
    onReceive: (handler) => ctx.onReceive(handler),
    work,
  };
}
