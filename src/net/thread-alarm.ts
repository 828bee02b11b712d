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

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const ctrl = new Int32Array(workerData.shared, 0, 2);   // [generation, closed]
const due = new Float64Array(workerData.shared, 8, 1); // ms on the main thread's clock
const origin = workerData.originNs;
const now = () => Number(process.hrtime.bigint() - origin) / 1e6;
for (;;) {
  const generation = Atomics.load(ctrl, 0);
  if (Atomics.load(ctrl, 1) !== 0) break;
  const at = due[0];
  if (!(at < Infinity)) { Atomics.wait(ctrl, 0, generation); continue; }
  const wait = at - now();
  if (wait > 0) { Atomics.wait(ctrl, 0, generation, wait); continue; }
  parentPort.postMessage(generation);
  // Fired: sleep until the main thread re-arms (a new generation) or closes.
  Atomics.wait(ctrl, 0, generation);
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
    const shared = new SharedArrayBuffer(16);
    this.ctrl = new Int32Array(shared, 0, 2);
    this.due = new Float64Array(shared, 8, 1);
    this.due[0] = Infinity;
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
   * Wakes the main thread once the clock reaches `dueMs`, or earlier: an
   * alarm already set for an earlier time is left as it is (waking the
   * worker costs a system call; the caller re-arms when the early alarm
   * finds nothing due).
   */
  arm(dueMs: number): void {
    if (this.closed) return;
    if (dueMs < this.armedDue) {
      this.due[0] = dueMs;
      this.armedDue = dueMs;
      this.bump();
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
