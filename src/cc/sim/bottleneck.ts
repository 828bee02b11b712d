// Several flows through one bottleneck, in the deterministic simulator. Each
// flow (a FlowFactory: a media stream under a controller, a TCP connection, a
// Salsify call) has its own sender and receiver and its own one-way
// propagation delay; the flows of a direction share that direction's link and
// queue. A flow sends 'forward' (its data on the forward link, its feedback on
// the backward link) or 'backward' (the reverse), so both directions can carry
// media at once (RFC 8867 5.3).
//
//   sender f --[delay d_f]--> shared forward link (queue, trace) ---> receiver f
//   sender f <--------------- shared backward link (queue, trace) <--[delay d_f]-- receiver f
//
// The path model is the one of src/link-emu: each flow's delay is a Chain of
// one delay stage, each shared direction a Chain built by pathStages from a
// PathDirectionSpec (its trace, queue, MTU; no delay or loss of its own), so
// a datagram reaches the shared link when it has crossed its flow's delay,
// and leaves the simulation the moment the link delivers it.
//
// Flows start, pause, resume and stop at the times given (Flow.start(),
// pause(), resume(), stop()). Every datagram that reaches a shared link is
// reported to the `packets` sink with its flow: arrival at the link,
// departure (with its queueing delay, as mm-link's log counts it) or drop;
// so is every datagram a flow sends (`sent`). Those are what the per-flow
// metrics and logs (src/cc/metrics/, flow-logs.ts) are made of.
import type { Flow, FlowFactory } from '../flow.ts';
import { Chain, type ChainCounters } from '../../link-emu/chain.ts';
import { pathStages, type PathDirectionSpec } from '../../link-emu/path.ts';
import type { LinkEventSink } from '../../link-emu/link.ts';
import { createRng } from '../../common/random.ts';
import { DEFAULT_OVERHEAD_BYTES } from '../../net/sim-network.ts';
import type { EndpointContext } from '../../net/endpoint.ts';
import { Simulator } from '../../net/simulator.ts';

export type FlowDirection = 'forward' | 'backward';
export const FLOW_DIRECTIONS: readonly FlowDirection[] = ['forward', 'backward'];

export interface FlowSchedule {
  /** When the flow starts, ms (default 0). */
  readonly startMs?: number;
  /** When it stops for good, ms (default: the end of the run). */
  readonly stopMs?: number;
  /** Pauses: [pause at, resume at] ms, in order, within [startMs, stopMs). */
  readonly pauses?: ReadonlyArray<readonly [number, number]>;
}

export interface FlowSpec extends FlowSchedule {
  readonly factory: FlowFactory;
  /** Which way the flow's data goes (default 'forward'). */
  readonly direction?: FlowDirection;
  /** The flow's one-way propagation delay, ms, each way (default 0). */
  readonly delayMs?: number;
  /** Label for tables and logs (default: factory name and flow id). */
  readonly label?: string;
}

/** A shared direction: its trace, queue, bound on a packet's wait and MTU (the path model's fields; delay and loss belong to the flows). */
export type SharedLinkSpec = Pick<PathDirectionSpec, 'trace' | 'queue' | 'queueArgs' | 'mtu' | 'once' | 'maxWaitMs'>;

/** Where a datagram of a flow is seen. Times are the simulator's clock (ms), sizes the bytes on the link. */
export interface FlowPacketSink {
  /** The flow's sender (data) or receiver (feedback) sent a datagram. */
  sent?(direction: FlowDirection, flowId: number, time: number, size: number): void;
  arrival?(direction: FlowDirection, flowId: number, time: number, size: number): void;
  departure?(direction: FlowDirection, flowId: number, time: number, size: number, queueingDelayMs: number): void;
  drop?(direction: FlowDirection, flowId: number, time: number, size: number): void;
}

export interface BottleneckOptions {
  readonly forward: SharedLinkSpec;
  readonly backward: SharedLinkSpec;
  readonly flows: readonly FlowSpec[];
  /** Simulated time, ms. */
  readonly durationMs: number;
  /** Seed of every random draw: the queues' (via the chains) and each flow's (forked by flow id). */
  readonly seed: string | number;
  /** Bytes each datagram occupies on a link beyond its payload (default 32, as the simulator's network). */
  readonly overheadBytes?: number;
  readonly packets?: FlowPacketSink;
  /** The shared links' own mm-link events (opportunities included), per direction. */
  readonly linkEvents?: Partial<Record<FlowDirection, LinkEventSink>>;
}

export interface FlowRun {
  readonly flowId: number;
  readonly label: string;
  readonly factory: string;
  readonly direction: FlowDirection;
  readonly delayMs: number;
  readonly startMs: number;
  readonly stopMs: number;
  readonly pauses: ReadonlyArray<readonly [number, number]>;
  /** The sender's target bitrate (bit/s) sampled every `sampleMs` while the flow runs, if it has one. */
  readonly targetBitrate: ReadonlyArray<readonly [number, number]>;
}

export interface BottleneckResult {
  readonly durationMs: number;
  readonly flows: readonly FlowRun[];
  readonly counters: Record<FlowDirection, ChainCounters>;
  readonly eventsRun: number;
}

interface Datagram {
  readonly flowId: number;
  readonly bytes: Uint8Array;
  /** When it reached the shared link. */
  arrivedAt: number;
}

/** How often a flow's target bitrate is sampled, ms. */
export const TARGET_SAMPLE_MS = 100;

function checkSchedule(spec: FlowSpec, i: number, durationMs: number): { startMs: number; stopMs: number; pauses: ReadonlyArray<readonly [number, number]> } {
  const fail = (what: string) => {
    throw new RangeError(`flow ${i} (${spec.factory.name}): ${what}`);
  };
  const startMs = spec.startMs ?? 0;
  const stopMs = Math.min(spec.stopMs ?? durationMs, durationMs);
  if (!(startMs >= 0 && startMs < durationMs)) fail(`startMs must be from 0 to below the run's ${durationMs} ms, got ${startMs}`);
  if (!(stopMs > startMs)) fail(`stopMs must be later than startMs (${startMs}), got ${stopMs}`);
  const delay = spec.delayMs ?? 0;
  if (!(delay >= 0 && Number.isFinite(delay))) fail(`delayMs must be a finite number >= 0, got ${delay}`);
  let last = startMs;
  for (const [pause, resume] of spec.pauses ?? []) {
    if (!(pause >= last && resume > pause && resume <= stopMs)) fail(`pause [${pause}, ${resume}] must lie in order within [${startMs}, ${stopMs}]`);
    last = resume;
  }
  return { startMs, stopMs, pauses: spec.pauses ?? [] };
}

/** Runs the flows through the bottleneck for `durationMs` of simulated time. */
export async function runBottleneck(options: BottleneckOptions): Promise<BottleneckResult> {
  const { durationMs, packets } = options;
  if (!(durationMs > 0 && Number.isFinite(durationMs))) throw new RangeError(`durationMs must be a finite number > 0, got ${durationMs}`);
  if (options.flows.length === 0) throw new RangeError('a bottleneck run needs at least one flow');
  const overhead = options.overheadBytes ?? DEFAULT_OVERHEAD_BYTES;
  const sim = new Simulator();
  const scheduler = { now: () => sim.now(), at: (t: number, cb: () => void) => sim.at(t, cb) };
  const rng = createRng(options.seed);
  // Handlers of the end that receives on each direction, per flow.
  const receivers: Record<FlowDirection, Array<((bytes: Uint8Array) => void) | undefined>> = { forward: [], backward: [] };

  const shared = {} as Record<FlowDirection, Chain<Datagram>>;
  for (const direction of FLOW_DIRECTIONS) {
    const spec = options[direction];
    const events = options.linkEvents?.[direction];
    // Forward is the path model's downlink (toward the application inside, as the video in salsify sim), backward its uplink.
    const stages = pathStages(direction === 'forward' ? 'downlink' : 'uplink', { ...spec, events });
    shared[direction] = new Chain<Datagram>(stages, {
      scheduler,
      rng: rng.fork(direction),
      deliver: (d, size) => {
        const now = sim.now();
        packets?.departure?.(direction, d.flowId, now, size, now - d.arrivedAt);
        // A delivery runs as an event of its own, as in the simulator's network.
        sim.at(now, () => receivers[direction][d.flowId]?.(d.bytes));
      },
      onDrop: (_cause, size, d) => {
        if (d) packets?.drop?.(direction, d.flowId, sim.now(), size);
      },
    });
  }
  const enterShared = (direction: FlowDirection) => (d: Datagram, size: number) => {
    d.arrivedAt = sim.now();
    packets?.arrival?.(direction, d.flowId, d.arrivedAt, size);
    shared[direction].push(size, d);
  };

  const runs: FlowRun[] = [];
  const flows: Flow[] = [];
  const ended: boolean[] = [];
  options.flows.forEach((spec, flowId) => {
    const { startMs, stopMs, pauses } = checkSchedule(spec, flowId, durationMs);
    const direction = spec.direction ?? 'forward';
    const back: FlowDirection = direction === 'forward' ? 'backward' : 'forward';
    const delayMs = spec.delayMs ?? 0;
    const delayChain = (toward: FlowDirection) =>
      new Chain<Datagram>(delayMs > 0 ? [{ kind: 'delay', ms: delayMs }] : [], { scheduler, rng: rng.fork(`flow${flowId}-${toward}`), deliver: enterShared(toward) });
    const dataPath = delayChain(direction);
    const feedbackPath = delayChain(back);
    const context = (path: Chain<Datagram>, toward: FlowDirection, receiveOn: FlowDirection): EndpointContext => ({
      now: () => sim.now(),
      setTimer: (delay, callback) => sim.after(delay, () => {
        if (!ended[flowId]) callback();
      }),
      send: (bytes) => {
        if (ended[flowId]) return;
        const size = bytes.length + overhead;
        packets?.sent?.(toward, flowId, sim.now(), size);
        path.push(size, { flowId, bytes, arrivedAt: NaN });
      },
      onReceive: (handler) => {
        receivers[receiveOn][flowId] = handler;
      },
      work: (task, modelledMs) => sim.work(task, modelledMs),
    });
    const sender = context(dataPath, direction, back);
    const receiver = context(feedbackPath, back, direction);
    const flow = spec.factory.create(sender, receiver, { flowId, seed: rng.fork(`flow${flowId}`).seed });
    flows.push(flow);
    ended.push(false);
    const targetBitrate: Array<readonly [number, number]> = [];
    runs.push({ flowId, label: spec.label ?? `${spec.factory.name}#${flowId}`, factory: spec.factory.name, direction, delayMs, startMs, stopMs, pauses, targetBitrate });
    sim.at(startMs, () => flow.start());
    for (const [pause, resume] of pauses) {
      sim.at(pause, () => flow.pause());
      sim.at(resume, () => flow.resume());
    }
    sim.at(stopMs, () => {
      flow.stop();
      ended[flowId] = true;
    });
    if (flow.targetBitrate) {
      const sample = () => {
        if (ended[flowId]) return;
        targetBitrate.push([sim.now(), flow.targetBitrate!()]);
        sim.after(TARGET_SAMPLE_MS, sample);
      };
      sim.at(startMs, sample);
    }
  });

  await sim.run({ until: durationMs });
  for (let i = 0; i < flows.length; i++) {
    if (!ended[i]) {
      flows[i]!.stop();
      ended[i] = true;
    }
  }
  return {
    durationMs,
    flows: runs,
    counters: { forward: shared.forward.stats(), backward: shared.backward.stats() },
    eventsRun: sim.eventCount(),
  };
}
