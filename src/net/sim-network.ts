// A simulated network joining two endpoints: datagrams the inside endpoint
// sends cross the uplink chain to the outside endpoint, and datagrams the
// outside endpoint sends cross the downlink chain back (Mahimahi's naming:
// the inside is the application in the shell). Each endpoint sees only an
// EndpointContext, exactly as over real sockets.

import { Chain, type ChainCounters, type StageSpec } from '../link-emu/chain.ts';
import { createRng } from '../common/random.ts';
import type { EndpointContext } from './endpoint.ts';
import type { Simulator } from './simulator.ts';

/** IPv4 + UDP headers and the 4-byte TUN header Mahimahi counts: a P-byte payload occupies P + 32 bytes of the link. */
export const DEFAULT_OVERHEAD_BYTES = 32;

export interface SimNetworkOptions {
  /** Stages inside -> outside, in the order packets cross them. */
  uplink: readonly StageSpec[];
  /** Stages outside -> inside. */
  downlink: readonly StageSpec[];
  /** Seed of every random draw the network makes (loss, PIE, on/off). */
  seed: string | number;
  /** Bytes each datagram occupies on the link beyond its payload (default 32). */
  overheadBytes?: number;
}

export interface SimNetwork {
  inside: EndpointContext;
  outside: EndpointContext;
  uplink: Chain<Uint8Array>;
  downlink: Chain<Uint8Array>;
  stats(): { uplink: ChainCounters; downlink: ChainCounters };
}

export function createSimNetwork(sim: Simulator, options: SimNetworkOptions): SimNetwork {
  const overhead = options.overheadBytes ?? DEFAULT_OVERHEAD_BYTES;
  if (!Number.isInteger(overhead) || overhead < 0) throw new RangeError(`overheadBytes must be a non-negative integer, got ${overhead}`);
  const rng = createRng(options.seed);
  const scheduler = { now: () => sim.now(), at: (t: number, cb: () => void) => sim.at(t, cb) };
  let insideHandler: ((bytes: Uint8Array) => void) | undefined;
  let outsideHandler: ((bytes: Uint8Array) => void) | undefined;
  // Deliveries run as events of their own, so that an endpoint that answers
  // at once never re-enters a link that is in the middle of its work.
  const uplink = new Chain<Uint8Array>(options.uplink, {
    scheduler,
    rng: rng.fork('uplink'),
    deliver: (bytes) => {
      sim.at(sim.now(), () => outsideHandler?.(bytes));
    },
  });
  const downlink = new Chain<Uint8Array>(options.downlink, {
    scheduler,
    rng: rng.fork('downlink'),
    deliver: (bytes) => {
      sim.at(sim.now(), () => insideHandler?.(bytes));
    },
  });

  const context = (chain: Chain<Uint8Array>, setHandler: (h: (bytes: Uint8Array) => void) => void): EndpointContext => ({
    now: () => sim.now(),
    setTimer: (delayMs, callback) => sim.after(delayMs, callback),
    send: (bytes) => {
      // The bytes are handed over (see EndpointContext.send): no copy on the hot path.
      chain.push(bytes.length + overhead, bytes);
    },
    onReceive: setHandler,
    work: (task, modelledMs) => sim.work(task, modelledMs),
  });

  return {
    inside: context(uplink, (h) => {
      insideHandler = h;
    }),
    outside: context(downlink, (h) => {
      outsideHandler = h;
    }),
    uplink,
    downlink,
    stats: () => ({ uplink: uplink.stats(), downlink: downlink.stats() }),
  };
}
