// The clock both live endpoints write their records on: milliseconds since the
// Unix epoch, read as performance.timeOrigin + performance.now(). Within one
// process this is monotonic (performance.now() counts from a fixed origin and
// never steps). Two processes on the same machine agree to within the error of
// their origins (each takes its timeOrigin from the system clock when it
// starts), so signal delays computed across a sender and a receiver on one
// machine are exact to about a millisecond or better. Like the Salsify paper's
// bench, the live commands ASSUME that sender and receiver share a clock: on
// two machines, synchronise their clocks first (PTP, or NTP for coarse
// figures) or the delays will be off by the clocks' offset.

/** Milliseconds since the Unix epoch, monotonic within this process. */
export function sharedClockNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The constant to add to readings of `localNow` (an endpoint's monotonic
 * clock, whatever its origin) to get shared-clock time. Both clocks count the
 * same monotonic time, so the offset does not drift; it is read with the two
 * readings back to back, the shared one bracketed by two local ones.
 */
export function sharedClockOffset(localNow: () => number): number {
  const before = localNow();
  const shared = sharedClockNow();
  const after = localNow();
  return shared - (before + after) / 2;
}
