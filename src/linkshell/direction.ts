// One direction of linkshell's emulated path: the simulator's Chain, with its
// stages built by the one path model (link-emu/path.ts: Mahimahi's nesting,
// the same stages in the same order as a simulated path), driven by the wall
// clock (or any DirectionScheduler), with
// what only a real-time run needs around it: a memory cap on the datagrams
// held, the mm-link log, and meters of queueing delay and of how late each
// departure is against its delivery opportunity.
//
// Link time is whole milliseconds since linkshell started, as Mahimahi's
// timestamps are: an arrival at 12.7 ms is an arrival at 12 ms, and an
// opportunity at 13 ms is used as soon as the clock reads 13 ms or more.
// A scheduled event (an opportunity, the end of a delay) acts as of its due
// time even when it runs late, so a late wake-up delays the real sending but
// changes nothing in the emulation: each departure's onward delay counts
// from its opportunity, as in the simulator. Callers run the due events
// before feeding a new arrival (see session.ts), so link time never goes back.

import { Chain, type ChainCounters, type DropCause, type Scheduler, type StageSeed } from '../link-emu/chain.ts';
import type { LinkEventSink } from '../link-emu/link.ts';
import type { Rng } from '../common/random.ts';
import type { Trace } from '../link-emu/trace.ts';
import type { TimerHandle } from '../common/timer.ts';
import { pathStages, type LossPlace, type OnOffSpec } from '../link-emu/path.ts';
import { Histogram } from './histogram.ts';

export type DirectionName = 'uplink' | 'downlink';

/**
 * The clock a direction runs on: linkshell's WallClockScheduler, or any
 * scheduler a test drives in virtual time. `dueTimeOfRunning()` is the due
 * time of the callback running now (undefined outside callbacks): a late
 * callback acts as of that time.
 */
export interface DirectionScheduler {
  now(): number;
  /** `lazy`: a bookkeeping callback that may run late, as of its due time (see WallClockScheduler). */
  at(time: number, callback: () => void, lazy?: boolean): TimerHandle;
  dueTimeOfRunning(): number | undefined;
}

export interface DirectionOptions<F> {
  name: DirectionName;
  trace: Trace;
  queue: string;
  queueArgs: string;
  mtu: number;
  once: boolean;
  delayMs: number;
  loss: number;
  /** Where the loss applies (default 'entry'). */
  lossAt?: LossPlace;
  /** An intermittent direction (mm-onoff); none by default. */
  onOff?: OnOffSpec | null;
  /** Link bytes a datagram takes beyond its payload. */
  overheadBytes: number;
  /** Most datagram bytes (on the link's count) held in the direction at once. */
  memoryCapBytes: number;
  scheduler: DirectionScheduler;
  rng: Rng;
  /** Link time (integer ms) at which the trace starts. */
  baseTimestamp: number;
  /** mm-link log events, if the direction is logged; a log that takes seeds gets each random stage's first (for replay). */
  log?: LinkEventSink & { stageSeed?(seed: StageSeed): void };
  /** Called with each datagram that leaves the direction. */
  deliver: (bytes: Uint8Array, flow: F) => void;
  /**
   * Where departures can be known at arrival (the link is the direction's
   * last stage and its queue infinite or droptail: see Chain), each admitted
   * datagram is offered here with the link time it will leave at; true: the
   * caller sends it then (linkshell's native thread), and `deliver` is not
   * called for it. Its lateness comes back through addSendLateness().
   */
  sendAhead?: (bytes: Uint8Array, flow: F, dueMs: number) => boolean;
  /** Called once when the memory cap first drops a datagram. */
  onMemoryCap?: (direction: DirectionName) => void;
  /**
   * Start in passthrough (Mahimahi's MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL):
   * datagrams are delivered at once, crossing no stage, counted but not
   * logged, until endPassthrough(). The link's clock runs all the while.
   */
  passthrough?: boolean;
}

export interface DirectionStats extends ChainCounters {
  /** Datagrams (and their link bytes) refused at entry because the direction held too much. */
  memoryCapDrops: number;
  memoryCapDropBytes: number;
  /** Link bytes held now (queued, in delay, partly sent). */
  heldBytes: number;
  /** Bytes and packets in the link's queue now. */
  queueBytes: number;
  queuePackets: number;
  /** Delivery opportunities used so far and the bytes they offered. */
  opportunities: number;
  capacityBytes: number;
  /** Link bytes that departed the link (before any stage after it). */
  linkDepartureBytes: number;
  queueingDelayMs: Histogram;
  departureLatenessMs: Histogram;
  /** Queueing delay of the latest departure (NaN before the first). */
  lastQueueingDelayMs: number;
  /** Datagrams (and their link bytes) delivered unemulated while in passthrough. */
  passthroughDatagrams: number;
  passthroughBytes: number;
}

interface Datagram<F> {
  bytes: Uint8Array;
  flow: F;
  /** Handed to sendAhead: leaves at its time without `deliver`. */
  ahead?: boolean;
}

export class Direction<F> {
  readonly name: DirectionName;
  readonly chain: Chain<Datagram<F>>;
  private readonly overhead: number;
  private readonly memoryCap: number;
  private held = 0;
  private memoryCapDrops = 0;
  private memoryCapDropBytes = 0;
  private linkDepartureBytes = 0;
  private lastDelay = NaN;
  private passthrough: boolean;
  private passthroughDatagrams = 0;
  private passthroughBytes = 0;
  private readonly deliver: (bytes: Uint8Array, flow: F) => void;
  private readonly queueingDelay = new Histogram();
  private readonly lateness = new Histogram();
  private readonly scheduler: DirectionScheduler;
  private readonly onMemoryCap: ((direction: DirectionName) => void) | undefined;
  private readonly linkClock: Scheduler;
  private readonly log: LinkEventSink | undefined;
  /** The arrival time of the datagram being pushed (undefined: now). */
  private arrivalMs: number | undefined;
  /** The lateness of the departure event running (when departures are projected, counted at delivery, for datagrams not sent ahead). */
  private departureLateness = 0;

  constructor(options: DirectionOptions<F>) {
    this.name = options.name;
    this.overhead = options.overheadBytes;
    this.memoryCap = options.memoryCapBytes;
    this.scheduler = options.scheduler;
    this.onMemoryCap = options.onMemoryCap;
    this.passthrough = options.passthrough ?? false;
    this.deliver = options.deliver;
    const wall = options.scheduler;
    let last = -Infinity;
    const linkClock: Scheduler = (this.linkClock = {
      now: () => {
        const t = wall.dueTimeOfRunning() ?? Math.floor(this.arrivalMs ?? wall.now());
        if (t > last) last = t;
        return last;
      },
      at: (time, callback, lazy) => wall.at(time, callback, lazy),
    });
    const log = (this.log = options.log);
    const events: LinkEventSink = {
      arrival: (time, size) => log?.arrival(time, size),
      opportunity: (time, mtu) => log?.opportunity(time, mtu),
      departure: (time, size, delay) => {
        // (Projected departures: the link is the last stage, so delivery follows at once; datagrams sent ahead report their own lateness.)
        if (this.chain.projectsDepartures()) this.departureLateness = Math.max(0, wall.now() - time);
        else this.lateness.add(Math.max(0, wall.now() - time));
        this.queueingDelay.add(delay);
        this.lastDelay = delay;
        this.linkDepartureBytes += size;
        log?.departure(time, size, delay);
      },
      drop: (time, packets, bytes) => log?.drop(time, packets, bytes),
    };
    const stages = pathStages(options.name, {
      trace: options.trace,
      queue: options.queue,
      queueArgs: options.queueArgs,
      mtu: options.mtu,
      once: options.once,
      delayMs: options.delayMs,
      loss: options.loss,
      lossAt: options.lossAt,
      onOff: options.onOff,
      baseTimestamp: options.baseTimestamp,
      events,
    });
    const sendAhead = options.sendAhead;
    // The stages start as of the base timestamp (an on/off stage draws its first period from now): when a held trace
    // clock starts at a datagram's arrival, the direction is built later than that arrival, and its link time must not
    // have moved past it already.
    this.arrivalMs = options.baseTimestamp;
    this.chain = new Chain<Datagram<F>>(stages, {
      scheduler: linkClock,
      rng: options.rng,
      deliver: (datagram, size) => {
        this.held -= size;
        if (datagram.ahead) return;
        if (this.chain.projectsDepartures()) this.lateness.add(this.departureLateness);
        options.deliver(datagram.bytes, datagram.flow);
      },
      onDeparturePlanned:
        sendAhead === undefined
          ? undefined
          : (datagram, time) => {
              if (time === Infinity) return;
              if (sendAhead(datagram.bytes, datagram.flow, time)) datagram.ahead = true;
              // Not sent ahead: the link's wake-up at its departure is lazy (see Chain), so wake the loop then for it.
              else wall.at(time, () => {});
            },
      onDrop: (_cause: DropCause, size: number) => {
        this.held -= size;
      },
    });
    this.arrivalMs = undefined;
    for (const seed of this.chain.stageSeeds()) log?.stageSeed?.(seed);
  }

  /**
   * A datagram enters the direction (it may be dropped: oversize, memory
   * cap, loss, a full queue): at `arrivalMs` on the scheduler's clock (when
   * the kernel received it; the caller has run what fell due before), or now.
   * Link time never goes back: an arrival stamped before an event the link
   * has already handled counts as of that event's time.
   */
  push(bytes: Uint8Array, flow: F, arrivalMs?: number): void {
    this.arrivalMs = arrivalMs;
    try {
      this.enter(bytes, flow);
    } finally {
      this.arrivalMs = undefined;
    }
  }

  private enter(bytes: Uint8Array, flow: F): void {
    // (An empty datagram with --overhead 0 still takes a byte: the link has no zero-size packets.)
    const size = Math.max(1, bytes.length + this.overhead);
    if (this.passthrough) {
      this.passthroughDatagrams++;
      this.passthroughBytes += size;
      this.deliver(bytes, flow);
      return;
    }
    if (size <= this.chain.mtu && this.held + size > this.memoryCap) {
      if (this.memoryCapDrops === 0) this.onMemoryCap?.(this.name);
      this.memoryCapDrops++;
      this.memoryCapDropBytes += size;
      // In the log as a drop at its arrival, so the log and the summary count the same drops.
      this.log?.drop(this.linkClock.now(), 1, size);
      return;
    }
    this.held += size;
    this.chain.push(size, { bytes, flow });
  }

  /** Ends passthrough (Mahimahi's SIGUSR1): datagrams cross the stages from now on. True if it was in passthrough. */
  endPassthrough(): boolean {
    const was = this.passthrough;
    this.passthrough = false;
    return was;
  }

  /** How late (ms) a datagram handed to sendAhead actually left. */
  addSendLateness(ms: number): void {
    this.lateness.add(Math.max(0, ms));
  }

  /**
   * Brings an idle link's opportunity count (and its log) up to now, so a
   * closing log covers the whole run; a busy link is already up to date,
   * since its next opportunity is scheduled.
   */
  catchUp(): void {
    const now = Math.floor(this.scheduler.now());
    for (const link of this.chain.links()) {
      if (link.isIdle()) {
        link.advanceTo(now, () => {
          throw new Error('an idle link cannot send');
        });
      }
    }
  }

  stats(): DirectionStats {
    const link = this.chain.links()[0];
    const counters = link.counters();
    return {
      ...this.chain.stats(),
      memoryCapDrops: this.memoryCapDrops,
      memoryCapDropBytes: this.memoryCapDropBytes,
      heldBytes: this.held,
      queueBytes: link.queue.sizeBytes(),
      queuePackets: link.queue.sizePackets(),
      opportunities: counters.opportunities,
      capacityBytes: counters.opportunities * link.mtu,
      linkDepartureBytes: this.linkDepartureBytes,
      queueingDelayMs: this.queueingDelay,
      departureLatenessMs: this.lateness,
      lastQueueingDelayMs: this.lastDelay,
      passthroughDatagrams: this.passthroughDatagrams,
      passthroughBytes: this.passthroughBytes,
    };
  }
}
