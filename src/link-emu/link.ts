// A trace-driven link with mm-link's delivery-opportunity semantics.
//
// Each trace entry is an opportunity to send `mtu` bytes. Opportunities are
// byte-granular: a packet may span several of them and departs at the time of
// the one that carries its last byte; the unused bytes of an opportunity are
// lost. As in Mahimahi, every opportunity at or before `now` is used up before
// a packet arriving at `now` is queued, so a packet never leaves at the
// millisecond it arrived. The trace repeats with period equal to its last
// timestamp, or with `once` the link delivers nothing after the trace ends.
//
// The link has no clock: callers pass the time to every call, so the same
// object serves the simulator (virtual time), linkshell (wall-clock time) and
// log replay.

import type { DropListener, PacketQueue, QueuedPacket } from './queue.ts';
import type { Trace } from './trace.ts';

/** Receives the events mm-link logs (see link-log.ts for the writer). */
export interface LinkEventSink {
  arrival(time: number, size: number): void;
  opportunity(time: number, mtu: number): void;
  departure(time: number, size: number, delay: number): void;
  drop(time: number, packets: number, bytes: number): void;
}

export interface LinkOptions<T> {
  trace: Trace;
  queue: PacketQueue<T>;
  /** Bytes per delivery opportunity; also the largest packet accepted (default 1504). */
  mtu?: number;
  /** Stop delivering after one pass of the trace (mm-link's --once). */
  once?: boolean;
  /** The link-clock time at which the trace's time zero is placed (mm-link's base timestamp). */
  baseTimestamp: number;
  /** Optional event sink, e.g. a log writer. */
  events?: LinkEventSink;
  /** Called for each packet the queue drops (at arrival or, for CoDel, at dequeue). */
  onDrop?: DropListener<T>;
  /**
   * A bound on each packet's wait, ms (not an mm-link option): an arriving
   * packet that would depart more than this after its arrival, behind what is
   * queued and at the trace's own future opportunities, is dropped at once, as
   * a drop-tail queue of that many ms on a fixed-rate link drops it (the
   * RFC 8867 cases' "300 ms queue" on a link whose capacity varies). Default:
   * no bound (the queue's own limit alone).
   */
  maxWaitMs?: number;
  /**
   * Work out each admitted packet's departure time when it arrives (see
   * arrive()). Exact only for a queue that never drops or reorders a packet
   * it has admitted (infinite, droptail): later arrivals then only queue
   * behind it.
   */
  projectDepartures?: boolean;
}

export type DepartureListener<T> = (packet: QueuedPacket<T>, time: number) => void;

export const DEFAULT_MTU = 1504;

export class PacketTooLargeError extends RangeError {
  constructor(readonly size: number, readonly mtu: number) {
    super(`packet of ${size} bytes is larger than the link's MTU of ${mtu} bytes`);
    this.name = 'PacketTooLargeError';
  }
}

export class TraceLink<T = unknown> {
  readonly mtu: number;
  readonly once: boolean;
  readonly queue: PacketQueue<T>;
  private readonly times: Float64Array;
  private readonly period: number;
  private readonly events: LinkEventSink | undefined;
  /** Index of the next opportunity in the trace, and the time the current pass started. */
  private index = 0;
  private base: number;
  private finished = false;
  private inTransit: QueuedPacket<T> | undefined = undefined;
  private inTransitBytesLeft = 0;
  /** Counters for summaries. */
  private stats = { arrivals: 0, arrivalBytes: 0, departures: 0, departureBytes: 0, opportunities: 0, drops: 0, dropBytes: 0 };
  private readonly dropCounter: DropListener<T>;
  private pendingDropPackets = 0;
  private pendingDropBytes = 0;
  private readonly maxWaitMs: number | undefined;
  private readonly projecting: boolean;
  /** Where the last byte queued will leave (while the link is busy): its opportunity (index, pass base) and the bytes left in it. */
  private tailIndex = 0;
  private tailBase = 0;
  private tailLeft = 0;
  private tailFinished = false;
  /** The packet being offered to the queue, and whether the queue refused it. */
  private arriving: QueuedPacket<T> | undefined;
  private arrivingDropped = false;

  constructor(options: LinkOptions<T>) {
    const mtu = options.mtu ?? DEFAULT_MTU;
    if (!Number.isInteger(mtu) || mtu <= 0) throw new RangeError(`link MTU must be a positive integer, got ${mtu}`);
    if (!Number.isFinite(options.baseTimestamp)) throw new RangeError(`link base timestamp must be finite, got ${options.baseTimestamp}`);
    const { times, period } = options.trace;
    if (times.length === 0 || !(period > 0)) throw new RangeError(`trace ${options.trace.source} is empty or has a zero period`);
    this.mtu = mtu;
    this.once = options.once ?? false;
    this.queue = options.queue;
    this.times = times;
    this.period = period;
    this.base = options.baseTimestamp;
    this.events = options.events;
    if (options.maxWaitMs !== undefined && !(options.maxWaitMs >= 0 && Number.isFinite(options.maxWaitMs))) {
      throw new RangeError(`link maxWaitMs must be a finite number >= 0, got ${options.maxWaitMs}`);
    }
    this.maxWaitMs = options.maxWaitMs;
    const onDrop = options.onDrop;
    this.projecting = options.projectDepartures ?? false;
    this.dropCounter = (packet, now) => {
      if (packet === this.arriving) this.arrivingDropped = true;
      this.pendingDropPackets++;
      this.pendingDropBytes += packet.size;
      onDrop?.(packet, now);
    };
  }

  /** Time of the next delivery opportunity, or Infinity once a `once` trace has ended. */
  nextOpportunity(): number {
    return this.finished ? Infinity : this.times[this.index] + this.base;
  }

  /** True when no packet is queued or partly sent. */
  isIdle(): boolean {
    return this.inTransitBytesLeft === 0 && this.queue.sizePackets() === 0;
  }

  /** True once a `once` trace has delivered its last opportunity. */
  isFinished(): boolean {
    return this.finished;
  }

  /** Bytes waiting: queued plus what is left of a partly sent packet. */
  backlogBytes(): number {
    return this.queue.sizeBytes() + this.inTransitBytesLeft;
  }

  counters(): Readonly<TraceLink['stats']> {
    return { ...this.stats };
  }

  /**
   * A look into the link's future, which only a simulator can have (the
   * oracle scheme's, salsify/schemes/oracle.ts): when the last of `bytes`
   * would depart if they joined the queue at `atMs`, behind what is queued now
   * (and what is left of a packet being sent) and the `earlier` arrivals, with
   * nothing else arriving, first in first out and no drops. Infinity if a
   * `once` trace ends first. Does not change the link.
   */
  deliveryTime(bytes: number, atMs: number, earlier: readonly { readonly atMs: number; readonly bytes: number }[] = []): number {
    if (!(bytes > 0) || !Number.isFinite(atMs)) throw new RangeError(`deliveryTime needs bytes > 0 and a finite time, got ${bytes} at ${atMs}`);
    if (this.finished) return Infinity;
    const arrivals = [...earlier.filter((e) => e.bytes > 0 && e.atMs <= atMs)].sort((a, b) => a.atMs - b.atMs);
    arrivals.push({ atMs, bytes });
    const mine = arrivals.length - 1;
    const times = this.times;
    let index = this.index;
    let base = this.base;
    // Bytes queued ahead (a FIFO of amounts; the last one admitted may be ours).
    let queued = this.backlogBytes();
    let next = 0;
    let mineLeft = -1;
    for (;;) {
      const time = times[index] + base;
      while (next < arrivals.length && arrivals[next].atMs < time) {
        if (next === mine) mineLeft = arrivals[next].bytes;
        else queued += arrivals[next].bytes;
        next++;
      }
      let capacity = this.mtu;
      const ahead = Math.min(capacity, queued);
      queued -= ahead;
      capacity -= ahead;
      if (mineLeft > 0 && capacity > 0) {
        mineLeft -= Math.min(capacity, mineLeft);
        if (mineLeft === 0) return time;
      }
      index++;
      if (index === times.length) {
        if (this.once) return Infinity;
        index = 0;
        base += this.period;
      }
    }
  }

  /**
   * Uses every delivery opportunity at or before `now`, in order, reporting
   * each packet that completes to `onDeparture` with its departure time.
   */
  advanceTo(now: number, onDeparture: DepartureListener<T>): void {
    const events = this.events;
    if (events === undefined && this.isIdle()) {
      this.skipIdleTo(now);
      return;
    }
    const times = this.times;
    const mtu = this.mtu;
    while (!this.finished) {
      const time = times[this.index] + this.base;
      if (time > now) break;
      this.useOpportunity();
      events?.opportunity(time, mtu);
      let bytesLeft = mtu;
      while (bytesLeft > 0) {
        if (this.inTransitBytesLeft === 0) {
          const next = this.queue.dequeue(time, this.dropCounter);
          this.flushDrops(time);
          if (next === undefined) break;
          this.inTransit = next;
          this.inTransitBytesLeft = next.size;
        }
        const amount = bytesLeft < this.inTransitBytesLeft ? bytesLeft : this.inTransitBytesLeft;
        this.inTransitBytesLeft -= amount;
        bytesLeft -= amount;
        if (this.inTransitBytesLeft === 0) {
          const packet = this.inTransit!;
          this.inTransit = undefined;
          this.stats.departures++;
          this.stats.departureBytes += packet.size;
          events?.departure(time, packet.size, time - packet.arrival);
          onDeparture(packet, time);
        }
      }
      if (events === undefined && this.isIdle()) {
        this.skipIdleTo(now);
        return;
      }
    }
  }

  /**
   * A packet of `size` bytes arrives at `now`: first every opportunity up to
   * `now` is used (departures go to `onDeparture`), then the packet is
   * offered to the queue. Returns the number of packets the queue dropped.
   * Throws PacketTooLargeError for a packet larger than the MTU (nothing is
   * logged for it, as mm-link refuses it before logging).
   *
   * With projectDepartures, `onAdmitted` learns when an admitted packet will
   * depart (the opportunity that will carry its last byte; Infinity after a
   * `once` trace's end) before any opportunity after `now` is used.
   */
  arrive(now: number, size: number, payload: T, onDeparture: DepartureListener<T>, onAdmitted?: (departure: number) => void): number {
    if (size > this.mtu) throw new PacketTooLargeError(size, this.mtu);
    if (!(size > 0) || !Number.isInteger(size)) throw new RangeError(`packet size must be a positive integer, got ${size}`);
    this.advanceTo(now, onDeparture);
    this.stats.arrivals++;
    this.stats.arrivalBytes += size;
    this.events?.arrival(now, size);
    const wasIdle = this.isIdle();
    const packet = { size, arrival: now, payload };
    this.arriving = packet;
    this.arrivingDropped = false;
    if (this.maxWaitMs !== undefined && this.deliveryTime(size, now) - now > this.maxWaitMs) this.dropCounter(packet, now);
    else this.queue.enqueue(packet, now, this.dropCounter);
    this.arriving = undefined;
    if (this.projecting && !this.arrivingDropped) {
      const departure = this.projectTail(size, wasIdle);
      onAdmitted?.(departure);
    }
    const dropped = this.pendingDropPackets;
    this.flushDrops(now);
    return dropped;
  }

  /** Moves the tail past `size` more bytes (from the next opportunity if the link was idle); returns the departure of the last of them. */
  private projectTail(size: number, wasIdle: boolean): number {
    const times = this.times;
    if (wasIdle) {
      this.tailIndex = this.index;
      this.tailBase = this.base;
      this.tailLeft = this.mtu;
      this.tailFinished = this.finished;
    }
    let left = size;
    while (!this.tailFinished) {
      const take = left < this.tailLeft ? left : this.tailLeft;
      left -= take;
      this.tailLeft -= take;
      if (left === 0) return times[this.tailIndex] + this.tailBase;
      this.tailIndex++;
      if (this.tailIndex === times.length) {
        this.tailIndex = 0;
        if (this.once) this.tailFinished = true;
        else this.tailBase += this.period;
      }
      this.tailLeft = this.mtu;
    }
    return Infinity;
  }

  private flushDrops(time: number): void {
    if (this.pendingDropPackets === 0) return;
    this.stats.drops += this.pendingDropPackets;
    this.stats.dropBytes += this.pendingDropBytes;
    this.events?.drop(time, this.pendingDropPackets, this.pendingDropBytes);
    this.pendingDropPackets = 0;
    this.pendingDropBytes = 0;
  }

  private useOpportunity(): void {
    this.stats.opportunities++;
    this.index++;
    if (this.index === this.times.length) {
      this.index = 0;
      if (this.once) this.finished = true;
      else this.base += this.period;
    }
  }

  /** With nothing to send and nothing to log, jumps over all opportunities at or before `now`. */
  private skipIdleTo(now: number): void {
    const times = this.times;
    const last = times.length - 1;
    if (this.finished || times[this.index] + this.base > now) return;
    if (times[last] + this.base <= now) {
      // The rest of this pass is used up.
      this.stats.opportunities += times.length - this.index;
      this.index = 0;
      if (this.once) {
        this.finished = true;
        return;
      }
      this.base += this.period;
      if (times[last] + this.base <= now) {
        const passes = Math.floor((now - times[last] - this.base) / this.period) + 1;
        this.base += passes * this.period;
        this.stats.opportunities += passes * times.length;
      }
    }
    // First index whose opportunity lies after `now`.
    let lo = this.index;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (times[mid] + this.base > now) hi = mid;
      else lo = mid + 1;
    }
    this.stats.opportunities += lo - this.index;
    this.index = lo;
  }
}
