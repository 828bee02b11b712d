// Real time for the parts of the toolkit that run against real sockets: a
// monotonic millisecond clock and a scheduler of due callbacks.
//
// The scheduler keeps every pending callback in one binary heap and arms a
// single Node timer for the earliest. Due times are absolute times on the
// monotonic clock (process.hrtime.bigint()), so setTimeout's millisecond
// rounding never accumulates: each callback runs at the first loop turn at
// or after its due time, whatever happened before (a callback that would
// run early is put back to sleep). Two ways to sleep:
// - timer 'timeout' (the default): Node's setTimeout. Its millisecond
//   granularity on a truncated loop clock makes callbacks up to about a
//   millisecond late; optionally the last `spinMs` before a due time are
//   waited out with setImmediate turns (which still let socket I/O in):
//   more punctual, for a lot more CPU.
// - timer 'thread': a worker thread sleeping in Atomics.wait wakes the loop
//   at the due time (see thread-alarm.ts): about a tenth of a millisecond
//   late, without spinning. linkshell uses it.
// A callback scheduled `lazy` only keeps books (linkshell's link wake-ups
// for departures its native thread already sends at their times): it runs
// in due-time order with the others whenever the loop runs due callbacks
// anyway (runDue at an arrival, an eager callback's timer), and only
// otherwise wakes the loop itself, at most `lazyBoundMs` late. It acts as of
// its due time, like any late callback, so what it does is the same; only
// the wake-ups, and their CPU, are saved.

import type { TimerHandle } from '../common/timer.ts';
import { EventHeap } from './event-heap.ts';
import { ThreadAlarm } from './thread-alarm.ts';

/** Milliseconds (fractional) since the clock's origin, never decreasing. */
export interface MonotonicClock {
  now(): number;
  /** The process.hrtime.bigint() reading at the origin, for clocks that read it (needed by timer: 'thread'). */
  readonly originNs?: bigint;
}

/** A clock reading process.hrtime.bigint(), with its origin at creation (or at `originNs`). */
export function createMonotonicClock(originNs: bigint = process.hrtime.bigint()): MonotonicClock {
  return {
    originNs,
    now: () => Number(process.hrtime.bigint() - originNs) / 1e6,
  };
}

/** How the scheduler sleeps until a due time: Node's setTimeout (plus spinning), or a worker thread's alarm. */
export type TimerKind = 'timeout' | 'thread';
export const TIMER_KINDS: readonly TimerKind[] = ['timeout', 'thread'];

export interface WallClockSchedulerOptions {
  clock?: MonotonicClock;
  /** setTimeout sleeps with `spinMs` polled (default), or a worker thread's alarm (spinMs then unused). */
  timer?: TimerKind;
  /** How long before a due time to stop sleeping in setTimeout and poll with setImmediate (default 0). */
  spinMs?: number;
  /** Called with how late (ms) each callback ran against its due time. */
  onLateness?: (lateMs: number) => void;
  /** Called when a callback throws; the scheduler keeps going. Without it the error is rethrown from the timer. */
  onError?: (error: unknown) => void;
  /** Most callbacks run in one loop turn before I/O gets a chance (default 4096). */
  batchLimit?: number;
  /** How late a lazy callback may run at most when nothing else runs the loop (ms, default 50). */
  lazyBoundMs?: number;
}

interface Entry {
  time: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
  lazy: boolean;
}

export const DEFAULT_LAZY_BOUND_MS = 50;

/** No spinning by default: plain setTimeout sleeps, within about a millisecond, at almost no CPU. */
export const DEFAULT_SPIN_MS = 0;

export class WallClockScheduler {
  readonly clock: MonotonicClock;
  private readonly spinMs: number;
  private readonly batchLimit: number;
  private readonly heap = new EventHeap<Entry>();
  /** Lazy callbacks (see above), apart, so that the earliest eager one is found at once. */
  private readonly lazyHeap = new EventHeap<Entry>();
  private readonly lazyBoundMs: number;
  private seq = 0;
  private live = 0;
  private timeout: NodeJS.Timeout | undefined;
  private timeoutDue = Infinity;
  private immediate: NodeJS.Immediate | undefined;
  private readonly alarm: ThreadAlarm | undefined;
  private closed = false;
  private running = false;
  private runningDue: number | undefined = undefined;
  private readonly runBound = () => this.run();

  constructor(private readonly options: WallClockSchedulerOptions = {}) {
    this.clock = options.clock ?? createMonotonicClock();
    const spin = options.spinMs ?? DEFAULT_SPIN_MS;
    if (!(spin >= 0) || !Number.isFinite(spin)) throw new RangeError(`spinMs must be a finite number >= 0, got ${spin}`);
    this.spinMs = spin;
    this.batchLimit = options.batchLimit ?? 4096;
    this.lazyBoundMs = options.lazyBoundMs ?? DEFAULT_LAZY_BOUND_MS;
    if (options.timer === 'thread') {
      const origin = this.clock.originNs;
      if (origin === undefined) throw new Error("timer 'thread' needs a clock with an originNs (createMonotonicClock)");
      this.alarm = new ThreadAlarm(
        origin,
        () => this.runDue(),
        () => {
          // Until the worker runs, setTimeout stands in; from now on the alarm takes over.
          if (this.timeout !== undefined) clearTimeout(this.timeout);
          this.timeout = undefined;
          this.timeoutDue = Infinity;
          if (!this.running) this.arm();
        },
      );
    } else if (options.timer !== undefined && options.timer !== 'timeout') {
      throw new RangeError(`unknown timer kind ${JSON.stringify(options.timer)} (expected ${TIMER_KINDS.join(' or ')})`);
    }
  }

  now(): number {
    return this.clock.now();
  }

  /** Runs `callback` once the clock reaches `time` (at once if it already has); `lazy`: it may run later (see above). */
  at(time: number, callback: () => void, lazy = false): TimerHandle {
    if (Number.isNaN(time)) throw new RangeError('cannot schedule a callback at NaN ms');
    if (this.closed) throw new Error('scheduler is closed');
    const entry: Entry = { time, seq: this.seq++, callback, cancelled: false, lazy };
    const heap = lazy ? this.lazyHeap : this.heap;
    heap.push(entry);
    this.live++;
    if (!this.running && heap.peek() === entry) this.arm();
    return {
      cancel: () => {
        if (entry.cancelled) return;
        entry.cancelled = true;
        this.live--;
      },
    };
  }

  /** Runs `callback` `delayMs` (>= 0) from now. */
  after(delayMs: number, callback: () => void): TimerHandle {
    if (!(delayMs >= 0)) throw new RangeError(`timer delay must be >= 0 ms, got ${delayMs}`);
    return this.at(this.now() + delayMs, callback);
  }

  /** Callbacks waiting (not cancelled). */
  pending(): number {
    return this.live;
  }

  /** Due time of the earliest pending callback, or Infinity. */
  nextDue(): number {
    this.dropCancelled();
    return Math.min(this.heap.peek()?.time ?? Infinity, this.lazyHeap.peek()?.time ?? Infinity);
  }

  /** When the loop must wake: the earliest eager callback's due time, or a lazy one's plus the bound. */
  private wakeDue(): number {
    this.dropCancelled();
    return Math.min(this.heap.peek()?.time ?? Infinity, (this.lazyHeap.peek()?.time ?? Infinity) + this.lazyBoundMs);
  }

  /** The earliest pending callback of either heap (time, then scheduling order), cancelled ones dropped; and its heap. */
  private earliest(): { entry: Entry; heap: EventHeap<Entry> } | undefined {
    this.dropCancelled();
    const eager = this.heap.peek();
    const lazy = this.lazyHeap.peek();
    if (lazy === undefined) return eager && { entry: eager, heap: this.heap };
    if (eager === undefined || lazy.time < eager.time || (lazy.time === eager.time && lazy.seq < eager.seq)) return { entry: lazy, heap: this.lazyHeap };
    return { entry: eager, heap: this.heap };
  }

  /**
   * The due time of the callback running now (undefined outside callbacks).
   * A callback that runs late can act as of its due time, as the simulator's
   * events do (linkshell's link clock reads it).
   */
  dueTimeOfRunning(): number | undefined {
    return this.runningDue;
  }

  /**
   * Runs every callback due by now, in due-time order (also what the timers
   * call). At most `limit` callbacks (default: the batch limit) run before
   * the loop gets a turn. With `until`, only those due by then (a past
   * arrival's time: what fell due before it happens first).
   */
  runDue(limit = this.batchLimit, until = Infinity): void {
    if (this.closed || this.running) return;
    this.running = true;
    let ran = 0;
    try {
      const onLateness = this.options.onLateness;
      while (ran < limit) {
        const next = this.earliest();
        if (next === undefined) break;
        const top = next.entry;
        const now = this.clock.now();
        if (top.time > now || top.time > until) break;
        next.heap.pop();
        top.cancelled = true;
        this.live--;
        ran++;
        // (A lazy callback is late by design: not the timer's lateness.)
        if (!top.lazy) onLateness?.(now - top.time);
        this.runningDue = top.time;
        this.invoke(top.callback);
        if (this.closed) return;
      }
    } finally {
      this.running = false;
      this.runningDue = undefined;
    }
    this.arm();
  }

  /** Drops every pending callback and disarms the timers; later at() calls throw. */
  close(): void {
    this.closed = true;
    this.disarm();
    void this.alarm?.close();
    this.heap.clear();
    this.lazyHeap.clear();
    this.live = 0;
  }

  private invoke(callback: () => void): void {
    if (!this.options.onError) {
      callback();
      return;
    }
    try {
      callback();
    } catch (error) {
      this.options.onError(error);
    }
  }

  private run(): void {
    this.timeout = undefined;
    this.timeoutDue = Infinity;
    this.immediate = undefined;
    this.runDue();
  }

  /** Makes sure a Node timer or immediate will run the earliest callback on time. */
  private arm(): void {
    if (this.closed) return;
    const due = this.wakeDue();
    if (due === Infinity) {
      // Nothing pending: a Node timer due within the lazy bound is left to fire and find nothing, rather than
      // cleared now and set again for the next callback (linkshell schedules a lazy callback at every arrival,
      // after the one before has run: one clearTimeout and one setTimeout per datagram otherwise).
      if (this.timeout !== undefined && this.immediate === undefined && this.timeoutDue - this.clock.now() <= this.lazyBoundMs) return;
      this.disarm();
      return;
    }
    const wait = due - this.clock.now();
    if (this.alarm?.online()) {
      if (wait <= 0) {
        this.immediate ??= setImmediate(this.runBound);
      } else {
        if (this.immediate !== undefined) clearImmediate(this.immediate);
        this.immediate = undefined;
        this.alarm.arm(due);
      }
      return;
    }
    if (wait <= this.spinMs) {
      if (this.timeout !== undefined) {
        clearTimeout(this.timeout);
        this.timeout = undefined;
        this.timeoutDue = Infinity;
      }
      this.immediate ??= setImmediate(this.runBound);
      return;
    }
    if (this.immediate !== undefined) {
      clearImmediate(this.immediate);
      this.immediate = undefined;
    }
    if (this.timeout !== undefined && this.timeoutDue <= due) return;
    if (this.timeout !== undefined) clearTimeout(this.timeout);
    // Node's timers count whole milliseconds of libuv's loop clock, whose phase differs from ours:
    // rounding up wakes us at most a millisecond past the start of the spin window (or the due time).
    this.timeout = setTimeout(this.runBound, Math.max(1, Math.ceil(wait - this.spinMs)));
    this.timeoutDue = due;
  }

  private disarm(): void {
    this.alarm?.disarm();
    if (this.timeout !== undefined) clearTimeout(this.timeout);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timeout = undefined;
    this.timeoutDue = Infinity;
    this.immediate = undefined;
  }

  private dropCancelled(): void {
    while (this.heap.peek()?.cancelled) this.heap.pop();
    while (this.lazyHeap.peek()?.cancelled) this.lazyHeap.pop();
  }
}
