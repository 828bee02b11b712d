// Sprout-EWMA, as Salsify's receiver runs it: an exponentially weighted moving
// average of the time between packet arrivals. A video sender transmits in
// frame-sized bursts, so the idle time before the first packet of a frame says
// nothing about the path; with the grace period on, that gap is reduced by the
// sender-reported time between the frame and the previous one, floored at zero.
// No clock of its own: the caller passes each arrival time.

export interface InterArrivalOptions {
  /** Weight of the newest sample, 0 < alpha <= 1 (default 0.1). */
  readonly alpha?: number;
  /** Subtract the sender's inter-frame gap from the first gap of each frame (default true). */
  readonly grace?: boolean;
}

export interface Arrival {
  /** Arrival time in milliseconds. */
  readonly at: number;
  /** The frame the packet belongs to. */
  readonly frame: number;
  /** Sender-reported time between this frame and the previous one, in milliseconds (>= 0). */
  readonly graceMs: number;
}

export class InterArrivalEstimator {
  readonly alpha: number;
  readonly grace: boolean;
  #estimate: number | undefined;
  #lastArrival: number | undefined;
  #lastFrame: number | undefined;

  constructor(options: InterArrivalOptions = {}) {
    const alpha = options.alpha ?? 0.1;
    if (!(alpha > 0 && alpha <= 1)) throw new RangeError(`inter-arrival alpha must be in (0, 1], got ${alpha}`);
    this.alpha = alpha;
    this.grace = options.grace ?? true;
  }

  /** The current estimate in milliseconds, or undefined before the second packet. */
  get estimateMs(): number | undefined {
    return this.#estimate;
  }

  /** Feeds one packet arrival; returns the gap sample it produced (undefined for the first packet). */
  observe(arrival: Arrival): number | undefined {
    const { at, frame, graceMs } = arrival;
    if (!Number.isFinite(at)) throw new RangeError(`arrival time must be finite, got ${at}`);
    if (!(graceMs >= 0) || !Number.isFinite(graceMs)) throw new RangeError(`grace period must be a finite number >= 0, got ${graceMs}`);
    const previous = this.#lastArrival;
    const newFrame = this.#lastFrame !== undefined && frame !== this.#lastFrame;
    this.#lastArrival = previous === undefined ? at : Math.max(previous, at);
    this.#lastFrame = frame;
    if (previous === undefined) return undefined;
    let gap = Math.max(0, at - previous);
    if (newFrame && this.grace) gap = Math.max(0, gap - graceMs);
    this.#estimate = this.#estimate === undefined ? gap : this.alpha * gap + (1 - this.alpha) * this.#estimate;
    return gap;
  }
}
