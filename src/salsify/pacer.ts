// Spaces a frame's datagrams as the reference sender does (alfalfa
// src/salsify/salsify-sender.cc and src/net/pacer.hh): when a frame is handed
// over, its gap is set to a fifth of the receiver's inter-arrival estimate in
// whole microseconds, clamped to 500..2000 us (2000 before any estimate); a
// datagram handed to an empty pacer leaves at once, any other one its gap
// after the one queued before it. So a frame does not hit the bottleneck queue
// as one burst. Time comes from the endpoint's timers; datagrams are built
// only when they leave, so their headers can carry departure-time information.
import type { EndpointContext } from '../net/endpoint.ts';

export const MIN_PACING_US = 500;
export const MAX_PACING_US = 2000;

/** The gap between two datagrams of a frame for a given inter-arrival estimate (whole microseconds). */
export function pacingGapUs(interArrivalUs: number | undefined): number {
  if (interArrivalUs === undefined || !Number.isFinite(interArrivalUs)) return MAX_PACING_US;
  return Math.min(MAX_PACING_US, Math.max(MIN_PACING_US, Math.floor(interArrivalUs / 5)));
}

/** Builds a datagram at its departure time. */
export type DatagramBuilder = (departureMs: number) => Uint8Array;

interface Scheduled {
  readonly due: number;
  readonly build: DatagramBuilder;
}

export class Pacer {
  readonly #ctx: EndpointContext;
  readonly #queue: Scheduled[] = [];
  #head = 0;
  #timerArmed = false;

  constructor(ctx: EndpointContext) {
    this.#ctx = ctx;
  }

  /** Datagrams waiting to leave. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * Queues a frame's datagrams, each `gapMs` after the one queued before it;
   * the first leaves at once if no datagram is waiting.
   */
  enqueue(builds: readonly DatagramBuilder[], gapMs: number): void {
    if (!(gapMs >= 0 && Number.isFinite(gapMs))) throw new RangeError(`pacing gap must be a finite number >= 0 ms, got ${gapMs}`);
    const now = this.#ctx.now();
    for (const build of builds) {
      const due = this.queued === 0 ? now : this.#queue[this.#queue.length - 1].due + gapMs;
      this.#queue.push({ due, build });
    }
    this.#pump();
  }

  #pump(): void {
    if (this.#timerArmed) return;
    while (this.#head < this.#queue.length) {
      const now = this.#ctx.now();
      const next = this.#queue[this.#head];
      if (now < next.due) {
        this.#timerArmed = true;
        this.#ctx.setTimer(next.due - now, () => {
          this.#timerArmed = false;
          this.#pump();
        });
        return;
      }
      this.#head++;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      this.#ctx.send(next.build(now));
    }
  }
}
