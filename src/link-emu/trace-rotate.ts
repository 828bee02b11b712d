// A trace started part-way through: rotateTrace(trace, S) is the trace as
// seen from its own time S on, so that a link (mm-link, linkshell, the
// simulator) whose clock starts at 0 replays the trace from S. Used where a
// run must start where a reference run did (the Salsify paper's WebRTC call
// on AT&T began about 12 s into the trace), without a second mechanism: the
// result is an ordinary trace, written to a file like any other.
//
// A trace repeats with period P (its last timestamp), so its opportunities are
// t + kP for every entry t and k >= 0. The rotated trace's entries are those
// in (S, S + P], minus S: entries t > S become t - S, entries t <= S come
// round again as t + P - S. Its period is its last entry, which is P exactly
// when S is one of the trace's timestamps; otherwise it is P minus the gap
// between S and the opportunity at or before it, so the first period is
// exact and each later repetition starts that gap early (a few ms on a
// cellular trace; up to an outage's length when S falls in one).
import type { Trace } from './trace.ts';

/** `trace` replayed from its time `offsetMs` (whole ms >= 0, taken modulo the period); the trace itself for an offset of 0. */
export function rotateTrace(trace: Trace, offsetMs: number): Trace {
  if (!Number.isInteger(offsetMs) || offsetMs < 0) throw new RangeError(`trace offset must be a whole number of ms >= 0, got ${offsetMs}`);
  const { times, period } = trace;
  const s = offsetMs % period;
  if (s === 0) return trace;
  const out = new Float64Array(times.length);
  let n = 0;
  for (const t of times) if (t > s) out[n++] = t - s;
  for (const t of times) if (t <= s) out[n++] = t + period - s;
  return { source: `${trace.source} from ${s} ms`, times: out, period: out[n - 1]! };
}
