// A Mahimahi packet-delivery trace: each entry is a millisecond offset from the
// trace's start at which one MTU-sized delivery opportunity occurs.
//
// Sibling modules: trace-parse.ts (parseTrace: the file format, Mahimahi's
// rules), trace-format.ts (formatTrace, assertValidTrace), trace-files.ts
// (loadTrace, writeTrace, resolveTraceName: ./traces, $LINKSHELL_TRACES,
// /usr/share/mahimahi/traces), trace-generators.ts (constant, Poisson, on/off,
// cellular-like), src/cli/gen-trace-command.ts (`linkshell gen-trace`).

export interface Trace {
  /** Where it came from (a file path or a generator description), used in messages and logs. */
  readonly source: string;
  /** Opportunity times in ms, non-decreasing, at least one entry, last entry > 0. */
  readonly times: Float64Array;
  /** The repeat period: the last timestamp. */
  readonly period: number;
}

/**
 * The trace's mean rate over its period in Mbit/s, counting
 * `bytesPerOpportunity` bytes per opportunity (default 1500, the convention of
 * Mahimahi's documentation; mm-link's links carry 1504).
 */
export function traceMeanRateMbps(trace: Trace, bytesPerOpportunity = 1500): number {
  return (trace.times.length * bytesPerOpportunity * 8) / (trace.period * 1000);
}
