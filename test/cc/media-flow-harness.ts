// Test harness: one media flow over the two-endpoint simulator, its media on
// the uplink (a trace-driven link behind a one-way delay, drop-tail queue),
// its feedback on the downlink (the same delay, no bottleneck). Records the
// target every 100 ms and every delivered packet's one-way delay.
import { pathStages } from '../../src/link-emu/path.ts';
import type { Trace } from '../../src/link-emu/trace.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';
import type { RateControllerModule } from '../../src/cc/controller.ts';
import { mediaFlow, type MediaFlowOptions, type MediaFlowStats, type ReceivedMediaPacket } from '../../src/cc/media-flow.ts';

/** A piecewise-constant capacity schedule as a trace of 1504-byte opportunities, exact in bits: [[fromMs, bit/s], ...]. */
export function scheduleTrace(schedule: ReadonlyArray<readonly [number, number]>, endMs: number): Trace {
  const times: number[] = [];
  let bits = 0;
  let opportunities = 0;
  for (let t = 1; t <= endMs; t++) {
    let rate = 0;
    for (const [from, r] of schedule) if (t - 1 >= from) rate = r;
    bits += rate / 1000;
    const total = Math.floor(bits / (8 * 1504));
    for (; opportunities < total; opportunities++) times.push(t);
  }
  return { source: `schedule(${schedule.map(([t, r]) => `${t}ms:${r}`).join(',')})`, times: Float64Array.from(times), period: times[times.length - 1]! };
}

/** RFC 8867 5.1's capacity schedule. */
export const RFC8867_5_1: ReadonlyArray<readonly [number, number]> = [[0, 1_000_000], [40_000, 2_500_000], [60_000, 600_000], [80_000, 1_000_000]];

export interface FlowRun {
  /** [timeMs, target bit/s] every 100 ms. */
  targets: Array<[number, number]>;
  packets: ReceivedMediaPacket[];
  stats: MediaFlowStats;
  wallMs: number;
  /** Bytes of payload received in [fromMs, toMs) as bit/s. */
  receivedBitrate(fromMs: number, toMs: number): number;
  /** Per-packet one-way delay minus the least one seen, for packets sent in [fromMs, toMs): sorted. */
  queueingDelays(fromMs: number, toMs: number): number[];
}

export async function runMediaFlow(module: RateControllerModule, options: { trace: Trace; durationMs: number; delayMs?: number; queueArgs?: string; seed?: number; flow?: MediaFlowOptions; pauseAt?: [number, number] }): Promise<FlowRun> {
  const delayMs = options.delayMs ?? 50;
  const started = performance.now();
  const sim = new Simulator();
  const net = createSimNetwork(sim, {
    uplink: pathStages('uplink', { trace: options.trace, queue: 'droptail', queueArgs: options.queueArgs ?? 'bytes=37500', delayMs }),
    downlink: [{ kind: 'delay', ms: delayMs }],
    seed: options.seed ?? 1,
  });
  const packets: ReceivedMediaPacket[] = [];
  const factory = mediaFlow(module, { ...options.flow, onPacketReceived: (p) => packets.push(p) });
  const flow = factory.create(net.inside, net.outside, { flowId: 0, seed: String(options.seed ?? 1) });
  const targets: Array<[number, number]> = [];
  const sample = () => {
    targets.push([sim.now(), flow.targetBitrate()]);
    if (sim.now() + 100 <= options.durationMs) sim.after(100, sample);
  };
  sim.at(0, () => {
    flow.start();
    sample();
  });
  if (options.pauseAt) {
    sim.at(options.pauseAt[0], () => flow.pause());
    sim.at(options.pauseAt[1], () => flow.resume());
  }
  sim.at(options.durationMs, () => flow.stop());
  await sim.run({ until: options.durationMs });
  const wallMs = performance.now() - started;
  const minOwd = Math.min(...packets.map((p) => p.arrivalTimeMs - p.sendTimeMs));
  return {
    targets,
    packets,
    stats: flow.stats(),
    wallMs,
    receivedBitrate: (fromMs, toMs) => (packets.filter((p) => p.arrivalTimeMs >= fromMs && p.arrivalTimeMs < toMs).reduce((s, p) => s + p.sizeBytes, 0) * 8 * 1000) / (toMs - fromMs),
    queueingDelays: (fromMs, toMs) =>
      packets
        .filter((p) => p.sendTimeMs >= fromMs && p.sendTimeMs < toMs)
        .map((p) => p.arrivalTimeMs - p.sendTimeMs - minOwd)
        .sort((a, b) => a - b),
  };
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
