// Sets of byte ranges [start, end), kept sorted and disjoint: the receiver's
// out-of-order data and the sender's SACK scoreboard are both one.

export type ByteRange = [number, number];

/**
 * Adds [start, end) to `ranges` (sorted, disjoint; changed in place), merging
 * every range it overlaps or touches; returns the range it is now part of.
 */
export function insertByteRange(ranges: ByteRange[], start: number, end: number): ByteRange {
  let i = 0;
  while (i < ranges.length && ranges[i]![1] < start) i++;
  let s = start;
  let e = end;
  let j = i;
  while (j < ranges.length && ranges[j]![0] <= e) {
    s = Math.min(s, ranges[j]![0]);
    e = Math.max(e, ranges[j]![1]);
    j++;
  }
  const merged: ByteRange = [s, e];
  ranges.splice(i, j - i, merged);
  return merged;
}
