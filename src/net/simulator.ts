// A deterministic discrete-event simulator in virtual time (milliseconds).
//
// Events run in order of (time, order of scheduling). Nothing here reads the
// wall clock. Asynchronous work (an encode running in a worker) goes through
// work(): virtual time stands still until the task settles, and its result is
// delivered `modelledMs` later in virtual time, so runs are identical however
// fast the machine is.

import type { TimerHandle } from '../common/timer.ts';
import { EventHeap } from './event-heap.ts';

class SimEvent implements TimerHandle {
  cancelled = false;
  constructor(
    readonly time: number,
    readonly seq: number,
    readonly callback: () => void,
  ) {}
  cancel(): void {
    this.cancelled = true;
  }
}

export interface RunOptions {
  /** Stop before the first event later than this time (the clock is then set to it). Default: run until no events remain. */
  until?: number;
}

export class Simulator {
  private clock: number;
  private seq = 0;
  private readonly heap = new EventHeap<SimEvent>();
  /** Events scheduled for the current time, in order: a FIFO is cheaper than the heap for them. */
  private nowQueue: SimEvent[] = [];
  private nowHead = 0;
  private pendingWork = 0;
  private workSettled: (() => void) | undefined = undefined;
  private yieldAfterEvent = false;
  private running = false;
  private eventsRun = 0;

  constructor(options: { startMs?: number } = {}) {
    this.clock = options.startMs ?? 0;
  }

  now(): number {
    return this.clock;
  }

  /** Number of events run so far (for benchmarks and sanity checks). */
  eventCount(): number {
    return this.eventsRun;
  }

  /** Schedules `callback` at absolute virtual time `time` (not before now). */
  at(time: number, callback: () => void): TimerHandle {
    if (!(time >= this.clock)) {
      throw new RangeError(`cannot schedule an event at ${time} ms: the clock is already at ${this.clock} ms`);
    }
    const event = new SimEvent(time, this.seq++, callback);
    if (time === this.clock) this.nowQueue.push(event);
    else this.heap.push(event);
    return event;
  }

  /** Schedules `callback` `delayMs` (>= 0) from now. */
  after(delayMs: number, callback: () => void): TimerHandle {
    if (!(delayMs >= 0)) throw new RangeError(`timer delay must be >= 0 ms, got ${delayMs}`);
    return this.at(this.clock + delayMs, callback);
  }

  /**
   * Runs `task` with virtual time stopped, and settles the returned promise
   * with its outcome `modelledMs` later in virtual time.
   */
  work<T>(task: () => Promise<T>, modelledMs: number): Promise<T> {
    if (!(modelledMs >= 0) || !Number.isFinite(modelledMs)) throw new RangeError(`modelled work time must be a finite number >= 0, got ${modelledMs}`);
    const due = this.clock + modelledMs;
    this.pendingWork++;
    return new Promise<T>((resolve, reject) => {
      const finish = (settle: () => void) => {
        this.at(due, () => {
          settle();
          this.yieldAfterEvent = true;
        });
        this.pendingWork--;
        if (this.pendingWork === 0) this.workSettled?.();
      };
      let started: Promise<T>;
      try {
        started = task();
      } catch (error) {
        started = Promise.reject(error);
      }
      started.then(
        (value) => finish(() => resolve(value)),
        (error) => finish(() => reject(error)),
      );
    });
  }

  /**
   * Runs events in order until none remain or the next is later than
   * `until`. Rejects if an event callback throws (the simulation state is
   * then undefined).
   */
  async run(options: RunOptions = {}): Promise<void> {
    if (this.running) throw new Error('Simulator.run() is already running');
    this.running = true;
    const until = options.until ?? Infinity;
    try {
      for (;;) {
        if (this.pendingWork > 0) await this.waitForWork();
        if (this.yieldAfterEvent) {
          // Let promise continuations of settled work run before time moves on.
          this.yieldAfterEvent = false;
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.pendingWork > 0) continue;
        }
        let next = this.heap.peek();
        if (this.nowHead < this.nowQueue.length) {
          // Same time as the heap's earliest only if that was scheduled first.
          const queued = this.nowQueue[this.nowHead];
          if (next === undefined || next.time > queued.time || next.seq > queued.seq) {
            next = queued;
            this.nowHead++;
            if (this.nowHead === this.nowQueue.length) {
              this.nowQueue = [];
              this.nowHead = 0;
            }
          } else this.heap.pop();
        } else {
          if (next === undefined) break;
          if (next.time > until) break;
          this.heap.pop();
        }
        if (next.cancelled) continue;
        this.clock = next.time;
        this.eventsRun++;
        next.callback();
      }
      if (until !== Infinity && until > this.clock) this.clock = until;
    } finally {
      this.running = false;
    }
  }

  /** True when no event is scheduled and no work is pending. */
  isIdle(): boolean {
    return this.pendingWork === 0 && this.heap.entries.every((e) => e.cancelled) && this.nowQueue.slice(this.nowHead).every((e) => e.cancelled);
  }

  private waitForWork(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.workSettled = () => {
        this.workSettled = undefined;
        resolve();
      };
    });
  }
}
