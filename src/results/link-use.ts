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
    if (this.#inside(time)) this.#capacity += bytes;
  }

  departure(time: number, bytes: number): void {
    if (this.#inside(time)) this.#departed += bytes;
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
