// A sub-millisecond alarm clock that does not spin: a worker thread sleeps
// in Atomics.wait (a futex with a fractional-millisecond timeout) until the
// due time on the shared monotonic clock, then posts a message that wakes
// the main thread's event loop. Node's own timers count whole milliseconds
// of a loop clock that is truncated to the millisecond, so they can be a
// millisecond early or late; this alarm is typically a few tens of
// microseconds late, at the cost of a thread that is asleep between alarms.
//
// The worker is plain JavaScript evaluated from a string, so it needs no
// TypeScript loader in the worker thread.

import { Worker } from 'node:worker_threads';

// Shared memory: ctrl = [generation, closed, wake], due = [ms]. The main
// thread writes the due time, then adds 1 to the generation; it wakes the
// worker (Atomics.notify, a system call, and a thread wake-up) only when the
// worker would otherwise sleep past the new due time: `wake` is when the
// worker will next wake by itself, in 1/16 ms since the origin (INT32_MAX:
// not by itself). After firing, the worker does not sleep until re-armed but
// until the due time it expects next (the last interval between alarms
// repeated, e.g. the next millisecond of a busy link): when the main thread
// re-arms for that time, which is the common case, the worker's own wake-up
// is the alarm, and re-arming costs neither side a wake-up.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const ctrl = new Int32Array(workerData.shared, 0, 3);   // [generation, closed, wake]
const due = new Float64Array(workerData.shared, 16, 1); // ms on the main thread's clock
const origin = workerData.originNs;
const now = () => Number(process.hrtime.bigint() - origin) / 1e6;
const NEVER = 0x7fffffff;
const publish = (until) => Atomics.store(ctrl, 2, until < NEVER / 16 ? Math.floor(until * 16) : NEVER);
let firedGeneration = -1; // the generation last fired: each arming fires at most once
let fired = -Infinity;    // the last due time fired
let interval = 1;         // between the last two due times fired (ms)
let expect = Infinity;    // when to look again for a due time after firing
for (;;) {
  const generation = Atomics.load(ctrl, 0);
  if (Atomics.load(ctrl, 1) !== 0) break;
  const at = due[0];
  const t = now();
  if (at <= t && generation !== firedGeneration) {
    parentPort.postMessage(generation);
    firedGeneration = generation;
    if (at > fired && at - fired <= 5) interval = Math.max(0.05, at - fired);
    fired = at;
    expect = at + interval;
    continue;
  }
  // Nothing to fire: sleep until the due time (if still ahead), or the expected one, or until re-armed.
  const until = at > t && at < Infinity ? at : expect > t ? expect : Infinity;
  if (until === expect) expect = Infinity;
  publish(until);
  Atomics.wait(ctrl, 0, generation, until === Infinity ? undefined : until - t);
}
`;

export class ThreadAlarm {
  private readonly worker: Worker;
  private readonly ctrl: Int32Array;
  private readonly due: Float64Array;
  private referenced = false;
  private closed = false;
  private started = false;
  /** The due time the worker sleeps towards (Infinity once it has fired or been told nothing). */
  private armedDue = Infinity;

  /**
   * `originNs` is the process.hrtime.bigint() reading that due times count
   * from; `onAlarm` runs on the main thread; `onOnline` once the worker runs
   * (a worker takes some milliseconds to start: use another timer until then).
   */
  constructor(originNs: bigint, onAlarm: () => void, onOnline?: () => void) {
    const shared = new SharedArrayBuffer(24);
    this.ctrl = new Int32Array(shared, 0, 3);
    this.due = new Float64Array(shared, 16, 1);
    this.due[0] = Infinity;
    this.ctrl[2] = 0x7fffffff;
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { shared, originNs } });
    this.worker.on('message', (generation: number) => {
      // A stale alarm (re-armed since) is harmless: the callback checks what is due.
      if (this.closed || generation !== Atomics.load(this.ctrl, 0)) return;
      this.armedDue = Infinity;
      onAlarm();
    });
    this.worker.once('online', () => {
      this.started = true;
      if (!this.closed) onOnline?.();
    });
    this.worker.on('error', (error) => {
      throw error;
    });
    this.worker.unref();
  }

  /** True once the worker thread runs. */
  online(): boolean {
    return this.started && !this.closed;
  }

  /**
   * Wakes the main thread once the clock reaches `dueMs` (replacing the time
   * armed before, earlier or later). Moving the alarm later never wakes the
   * worker: it wakes at the earlier time, finds the new one and sleeps on
   * without waking the main thread, so a main thread that ran what was due
   * on its own (on a datagram's arrival) is not woken for nothing.
   */
  arm(dueMs: number): void {
    if (this.closed) return;
    if (dueMs !== this.armedDue) {
      this.due[0] = dueMs;
      this.armedDue = dueMs;
      // The generation changes first, so a worker about to sleep sees the new due time (its wait returns at once).
      Atomics.add(this.ctrl, 0, 1);
      if (dueMs * 16 < Atomics.load(this.ctrl, 2)) Atomics.notify(this.ctrl, 0);
    }
    if (!this.referenced) {
      // While armed, the alarm keeps the process alive, as a pending setTimeout would.
      this.worker.ref();
      this.referenced = true;
    }
  }

  /** Nothing to wake for: the alarm no longer keeps the process alive (a pending alarm may still come, harmlessly). */
  disarm(): void {
    if (this.closed) return;
    if (this.referenced) {
      this.worker.unref();
      this.referenced = false;
    }
  }

  close(): Promise<number> {
    if (this.closed) return Promise.resolve(0);
    this.closed = true;
    Atomics.store(this.ctrl, 1, 1);
    this.bump();
    return this.worker.terminate();
  }

  private bump(): void {
    Atomics.add(this.ctrl, 0, 1);
    Atomics.notify(this.ctrl, 0);
  }
}
