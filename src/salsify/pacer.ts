// Spaces a frame's datagrams: the reference design sends them a fifth of the
// receiver's inter-arrival estimate apart, clamped to 0.5..2 ms, so a frame
// does not hit the bottleneck queue as one burst. Time comes from the
// endpoint's timers; datagrams are built only when they leave, so their
// headers can carry departure-time information.
import type { EndpointContext } from '../net/endpoint.ts';

export const MIN_PACING_MS = 0.5;
export const MAX_PACING_MS = 2;

/** The gap between two datagrams for a given inter-arrival estimate (ms). */
export function pacingIntervalMs(interArrivalMs: number | undefined): number {
  if (interArrivalMs === undefined || !Number.isFinite(interArrivalMs)) return MAX_PACING_MS;
  return Math.min(MAX_PACING_MS, Math.max(MIN_PACING_MS, interArrivalMs / 5));
}

/** Builds a datagram at its departure time. */
export type DatagramBuilder = (departureMs: number) => Uint8Array;

export class Pacer {
  readonly #ctx: EndpointContext;
  readonly #interval: () => number;
  readonly #queue: DatagramBuilder[] = [];
  #head = 0;
  #nextDeparture = -Infinity;
  #timerArmed = false;

  /** `interval` is asked for the current gap each time a datagram leaves. */
  constructor(ctx: EndpointContext, interval: () => number) {
    this.#ctx = ctx;
    this.#interval = interval;
  }

  /** Datagrams waiting to leave. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  enqueue(build: DatagramBuilder): void {
    this.#queue.push(build);
    this.#pump();
  }

  #pump(): void {
    if (this.#timerArmed) return;
    while (this.#head < this.#queue.length) {
      const now = this.#ctx.now();
      if (now < this.#nextDeparture) {
        this.#timerArmed = true;
        this.#ctx.setTimer(this.#nextDeparture - now, () => {
          this.#timerArmed = false;
          this.#pump();
        });
        return;
      }
      const build = this.#queue[this.#head++];
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      this.#ctx.send(build(now));
      this.#nextDeparture = now + this.#interval();
    }
  }
}
