// A Mahimahi packet-delivery trace: each entry is a millisecond offset from the
// trace's start at which one MTU-sized delivery opportunity occurs.

export interface Trace {
  /** Where it came from (a file path or a generator description), used in messages and logs. */
  readonly source: string;
  /** Opportunity times in ms, non-decreasing, at least one entry, last entry > 0. */
  readonly times: Float64Array;
  /** The repeat period: the last timestamp. */
  readonly period: number;
}
