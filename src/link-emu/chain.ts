// One direction of an emulated path: a declared sequence of stages (delay,
// loss, Gilbert-Elliott loss, on/off, trace-driven link) that packets cross in
// order, as nested Mahimahi shells do. The chain knows nothing about real or
// virtual time: it is driven by the Scheduler it is given (the simulator's
// event loop, or linkshell's wall-clock timers).

import type { TimerHandle } from '../common/timer.ts';
import { GilbertElliottLoss, IndependentLoss, OnOffProcess, type GilbertElliottParams } from './impairments.ts';
import { DEFAULT_MTU, TraceLink, type LinkEventSink } from './link.ts';
import type { QueuedPacket } from './queue.ts';
import { createQueue } from './queue-factory.ts';
import type { Rng } from '../common/random.ts';
import type { Trace } from './trace.ts';

export type StageSpec =
  | { kind: 'delay'; ms: number }
  | { kind: 'loss'; rate: number }
  | ({ kind: 'gilbert-elliott' } & GilbertElliottParams)
  | {
      kind: 'onoff';
      meanOnMs: number;
      meanOffMs: number;
      startOn?: boolean;
      /** Fixed on and off periods (mm-intermittent), not exponentially distributed ones (mm-onoff). */
      periodic?: boolean;
      /** Given the stage's on/off process once it is built (to read its off periods after a run). */
      observe?: (process: OnOffProcess) => void;
    }
  | {
      kind: 'link';
      trace: Trace;
      /** mm-link queue name (default infinite) and arguments (e.g. "packets=256"). */
      queue?: string;
      queueArgs?: string;
      mtu?: number;
      once?: boolean;
      /** Where the trace's time zero lies on the scheduler's clock (default: the time the chain is built). */
      baseTimestamp?: number;
      /** Receives mm-link log events (arrivals, opportunities, departures, drops). */
      events?: LinkEventSink;
      /** Drop an arriving packet that would wait longer than this, ms (TraceLink's maxWaitMs; not an mm-link option). */
      maxWaitMs?: number;
    };

/** The seed a random stage of a chain draws from: createRng(seed) gives the same draws (for a link, its queue's). */
export interface StageSeed {
  /** Index of the stage in the chain, and its kind. */
  stage: number;
  kind: StageSpec['kind'];
  seed: string;
}

export interface Scheduler {
  now(): number;
  /**
   * `lazy`: the callback only keeps books (a link's wake-up when its
   * departures were all handed to onDeparturePlanned): a real-time
   * scheduler may run it late, as of its due time. Virtual time ignores it.
   */
  at(time: number, callback: () => void, lazy?: boolean): TimerHandle;
}

export type DropCause = 'loss' | 'onoff' | 'queue' | 'oversize';

export interface ChainCounters {
  packetsIn: number;
  bytesIn: number;
  packetsOut: number;
  bytesOut: number;
  drops: Record<DropCause, number>;
  dropBytes: Record<DropCause, number>;
}

export interface ChainOptions<T> {
  scheduler: Scheduler;
  rng: Rng;
  /** Called with each packet that leaves the last stage. */
  deliver: (payload: T, size: number) => void;
  /** Called for every packet lost on the way, with the cause. */
  onDrop?: (cause: DropCause, size: number, payload: T | undefined) => void;
  /**
   * Called, when the chain's last stage is a link whose queue never drops a
   * packet it has admitted (infinite, droptail), with each packet the link
   * admits and the time it will leave the chain (Infinity: never, a `once`
   * trace ended): known at its arrival, because later arrivals only queue
   * behind it. (linkshell hands the datagram to its sending thread then.)
   */
  onDeparturePlanned?: (payload: T, time: number) => void;
}

type Hop<T> = (size: number, payload: T) => void;

export class Chain<T> {
  private readonly counters: ChainCounters = {
    packetsIn: 0,
    bytesIn: 0,
    packetsOut: 0,
    bytesOut: 0,
    drops: { loss: 0, onoff: 0, queue: 0, oversize: 0 },
    dropBytes: { loss: 0, onoff: 0, queue: 0, oversize: 0 },
  };
  private readonly entry: Hop<T>;
  private readonly traceLinks: TraceLink<T>[] = [];
  private readonly seeds: StageSeed[] = [];
  /** The largest packet the chain's links accept (Infinity without a link). */
  readonly mtu: number;
  /** Whether departures are known at arrival (onDeparturePlanned is called; see ChainOptions). */
  private projecting = false;

  constructor(readonly specs: readonly StageSpec[], private readonly options: ChainOptions<T>) {
    let next: Hop<T> = (size, payload) => {
      this.counters.packetsOut++;
      this.counters.bytesOut += size;
      options.deliver(payload, size);
    };
    let mtu = Infinity;
    for (let i = specs.length - 1; i >= 0; i--) {
      const spec = specs[i];
      const rng = options.rng.fork(`stage${i}-${spec.kind}`);
      if (spec.kind !== 'delay') this.seeds.unshift({ stage: i, kind: spec.kind, seed: rng.seed });
      next = this.buildStage(spec, next, rng, i === specs.length - 1);
      if (spec.kind === 'link') mtu = Math.min(mtu, spec.mtu ?? DEFAULT_MTU);
    }
    this.entry = next;
    this.mtu = mtu;
    this.traceLinks.reverse();
  }

  /** A packet of `size` bytes enters the chain now. */
  push(size: number, payload: T): void {
    this.counters.packetsIn++;
    this.counters.bytesIn += size;
    if (size > this.mtu) {
      this.drop('oversize', size, payload);
      return;
    }
    this.entry(size, payload);
  }

  stats(): ChainCounters {
    const c = this.counters;
    return { ...c, drops: { ...c.drops }, dropBytes: { ...c.dropBytes } };
  }

  /** The seed of every stage that draws random numbers (all but delays), in order: what a replay needs to repeat the run. */
  stageSeeds(): readonly StageSeed[] {
    return this.seeds;
  }

  /** Whether onDeparturePlanned learns every admitted packet's departure at its arrival. */
  projectsDepartures(): boolean {
    return this.projecting;
  }

  /** The chain's trace-driven links, in order (for their counters and backlog). */
  links(): readonly TraceLink<T>[] {
    return this.traceLinks;
  }

  private drop(cause: DropCause, size: number, payload: T | undefined): void {
    this.counters.drops[cause]++;
    this.counters.dropBytes[cause] += size;
    this.options.onDrop?.(cause, size, payload);
  }

  private buildStage(spec: StageSpec, next: Hop<T>, rng: Rng, last: boolean): Hop<T> {
    const scheduler = this.options.scheduler;
    switch (spec.kind) {
      case 'delay': {
        const ms = spec.ms;
        if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`delay must be a finite number of ms >= 0, got ${ms}`);
        if (ms === 0) return next;
        return (size, payload) => {
          scheduler.at(scheduler.now() + ms, () => next(size, payload));
        };
      }
      case 'loss': {
        const loss = new IndependentLoss(spec.rate, rng);
        return (size, payload) => {
          if (loss.drops()) this.drop('loss', size, payload);
          else next(size, payload);
        };
      }
      case 'gilbert-elliott': {
        const loss = new GilbertElliottLoss(spec, rng);
        return (size, payload) => {
          if (loss.drops()) this.drop('loss', size, payload);
          else next(size, payload);
        };
      }
      case 'onoff': {
        const process = new OnOffProcess(spec.meanOnMs, spec.meanOffMs, rng, scheduler.now(), spec.startOn ?? true, spec.periodic ?? false);
        spec.observe?.(process);
        return (size, payload) => {
          if (process.isOn(scheduler.now())) next(size, payload);
          else this.drop('onoff', size, payload);
        };
      }
      case 'link':
        return this.buildLink(spec, next, rng, last);
    }
  }

  private buildLink(spec: Extract<StageSpec, { kind: 'link' }>, next: Hop<T>, rng: Rng, last: boolean): Hop<T> {
    const scheduler = this.options.scheduler;
    const kind = spec.queue ?? 'infinite';
    const queue = createQueue<T>(kind, spec.queueArgs ?? '', rng);
    const planned = this.options.onDeparturePlanned;
    const project = planned !== undefined && last && (kind === 'infinite' || kind === 'droptail');
    if (project) this.projecting = true;
    const link = new TraceLink<T>({
      trace: spec.trace,
      queue,
      mtu: spec.mtu,
      once: spec.once,
      baseTimestamp: spec.baseTimestamp ?? scheduler.now(),
      events: spec.events,
      maxWaitMs: spec.maxWaitMs,
      onDrop: (packet) => this.drop('queue', packet.size, packet.payload),
      projectDepartures: project,
    });
    this.traceLinks.push(link);
    let wakeAt = -Infinity;
    let wakeTimer: TimerHandle | undefined;
    const depart = (packet: QueuedPacket<T>) => next(packet.size, packet.payload);
    const schedule = () => {
      if (link.isIdle()) return;
      const due = link.nextOpportunity();
      if (due === Infinity || due === wakeAt) return;
      wakeTimer?.cancel();
      wakeAt = due;
      // (Projected: every departure was handed on at its arrival; whoever declines one wakes the loop for it itself.)
      wakeTimer = scheduler.at(due, wake, project);
    };
    const wake = () => {
      wakeAt = -Infinity;
      wakeTimer = undefined;
      link.advanceTo(scheduler.now(), depart);
      schedule();
    };
    // (One listener for every arrival, told the payload before each: no closure per packet.)
    let arriving: T;
    const admitted = project ? (time: number) => planned!(arriving, time) : undefined;
    return (size, payload) => {
      arriving = payload;
      link.arrive(scheduler.now(), size, payload, depart, admitted);
      schedule();
    };
  }
}
