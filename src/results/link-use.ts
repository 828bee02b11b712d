// Link utilisation, counted one way for every producer: over a window
// [fromMs, toMs) of the link's clock, the bytes that departed (each datagram
// counting its size on the link, the 32-byte overhead included) over the
// bytes the link could have delivered (MTU bytes per delivery opportunity).
// It listens to a link's events as they happen (a simulated TraceLink's
// `events`, or the lines of an mm-link log read back), so the simulator and a
// live run's log are counted by the same code.

import type { LinkUse } from './frame-record.ts';

export class LinkUseMeter {
  #departed = 0;
  #capacity = 0;
  /** The last two opportunities seen: their time and the bytes not yet known to be used. */
  #previous: { time: number; left: number } | undefined;
  #current: { time: number; left: number } | undefined;

  constructor(
    readonly fromMs: number,
    readonly toMs: number,
  ) {
    if (!(fromMs <= toMs)) throw new RangeError(`link use window [${fromMs}, ${toMs}) is empty or reversed`);
  }

  #inside(time: number): boolean {
    return time >= this.fromMs && time < this.toMs;
  }

  opportunity(time: number, bytes: number): void {
    this.#previous = this.#current;
    this.#current = { time, left: bytes };
    if (this.#inside(time)) this.#capacity += bytes;
  }

  /**
   * A packet of `bytes` left the link at `time` (an opportunity's time), `delay` ms after it
   * arrived. Its bytes count where the link delivered them: a packet that was queued before the
   * previous opportunity (arrival < its time) took what that opportunity had left (a packet is at
   * most one MTU, so it spans at most two), which counts at that opportunity's time. Without
   * this, a packet begun before the window and completed inside it counted whole inside it, and
   * a saturated link's use came out above 100 %. Without `delay`, all at `time`.
   */
  departure(time: number, bytes: number, delay?: number): void {
    const previous = this.#previous;
    const carried = delay !== undefined && previous !== undefined && previous.time < time && time - delay < previous.time
      ? Math.max(0, Math.min(previous.left, bytes))
      : 0;
    if (carried > 0) previous!.left -= carried;
    if (this.#current !== undefined && this.#current.time === time) this.#current.left -= bytes - carried;
    if (this.#inside(time)) this.#departed += bytes - carried;
    if (carried > 0 && this.#inside(previous!.time)) this.#departed += carried;
  }

  /** Arrivals and drops do not count; present so that a meter is a link event sink. */
  arrival(): void {}
  drop(): void {}

  result(): LinkUse {
    return { fromMs: this.fromMs, toMs: this.toMs, departedBytes: this.#departed, capacityBytes: this.#capacity };
  }
}

/** Departed over capacity bytes; NaN when the link is not known, 0 for a window without opportunities. */
export function utilization(link: LinkUse | null): number {
  if (link === null) return NaN;
  return link.capacityBytes > 0 ? link.departedBytes / link.capacityBytes : 0;
}
