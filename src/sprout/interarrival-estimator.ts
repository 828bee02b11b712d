// Sprout-EWMA, as Salsify's reference receiver runs it (alfalfa
// src/salsify/salsify-receiver.cc, AverageInterPacketDelay): an exponentially
// weighted moving average of the time between packet arrivals. The first
// packet sets the average to 0 (no sample); every later packet adds the sample
// max(0, gap - grace), where gap is the time since the previous packet and
// grace is what the packet carries: the sender puts on a frame's first
// fragment the time since it handed the previous frame to its pacer (a video
// sender transmits in frame-sized bursts, so the idle time before a frame
// says nothing about the path) and 0 on the others. With `grace: false` the
// carried value is ignored. No clock of its own: the caller passes each
// arrival time.

export interface InterArrivalOptions {
  /** Weight of the newest sample, 0 < alpha <= 1 (default 0.1). */
  readonly alpha?: number;
  /** Subtract the grace period the packets carry from their gaps (default true). */
  readonly grace?: boolean;
}

export interface Arrival {
  /** Arrival time in milliseconds. */
  readonly at: number;
  /** The grace period the packet carries, in milliseconds (>= 0; 0 on all but a frame's first fragment). */
  readonly graceMs: number;
}

export class InterArrivalEstimator {
  readonly alpha: number;
  readonly grace: boolean;
  #estimate: number | undefined;
  #lastArrival: number | undefined;

  constructor(options: InterArrivalOptions = {}) {
    const alpha = options.alpha ?? 0.1;
    if (!(alpha > 0 && alpha <= 1)) throw new RangeError(`inter-arrival alpha must be in (0, 1], got ${alpha}`);
    this.alpha = alpha;
    this.grace = options.grace ?? true;
  }

  /** The current estimate in milliseconds: undefined before the first packet, 0 after it. */
  get estimateMs(): number | undefined {
    return this.#estimate;
  }

  /** Feeds one packet arrival; returns the sample it produced (undefined for the first packet). */
  observe(arrival: Arrival): number | undefined {
    const { at, graceMs } = arrival;
    if (!Number.isFinite(at)) throw new RangeError(`arrival time must be finite, got ${at}`);
    if (!(graceMs >= 0) || !Number.isFinite(graceMs)) throw new RangeError(`grace period must be a finite number >= 0, got ${graceMs}`);
    const previous = this.#lastArrival;
    this.#lastArrival = previous === undefined ? at : Math.max(previous, at);
    if (previous === undefined) {
      this.#estimate = 0;
      return undefined;
    }
    const gap = Math.max(0, at - previous);
    const sample = this.grace ? Math.max(0, gap - graceMs) : gap;
    this.#estimate = this.alpha * sample + (1 - this.alpha) * this.#estimate!;
    return sample;
  }
}
