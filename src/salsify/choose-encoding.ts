// Salsify's per-frame choice, as the reference sender makes it (alfalfa
// src/salsify/salsify-sender.cc): of the encodings made, send the largest that
// fits the target size (the first of equal ones); if none fits, skip the
// frame, unless `maxSkips` frames were skipped in a row just before: then send
// the last encoding of the plan anyway (the reference's "fail-small", its
// lowest quality).

export type Choice = 'better' | 'worse' | 'skip';

export const DEFAULT_MAX_SKIPS = 3;

/** The index of the encoding to send, or 'skip'. */
export function chooseLargestFitting(sizes: readonly number[], targetBytes: number, skipsInARow: number, maxSkips = DEFAULT_MAX_SKIPS): number | 'skip' {
  if (sizes.length === 0) throw new RangeError('no encoding to choose from');
  let best = -1;
  for (let i = 0; i < sizes.length; i++) {
    if (sizes[i] <= targetBytes && (best < 0 || sizes[i] > sizes[best])) best = i;
  }
  if (best >= 0) return best;
  return skipsInARow >= maxSkips ? sizes.length - 1 : 'skip';
}

export interface ChoiceInput {
  readonly betterBytes: number;
  readonly worseBytes: number;
  readonly targetBytes: number;
  /** Frames skipped in a row just before this one. */
  readonly skipsInARow: number;
  readonly maxSkips?: number;
}

/** The two-encoding case (salsify-1, salsify-2): the better one is the first, the worse (fail-small) the second. */
export function chooseEncoding(input: ChoiceInput): Choice {
  const c = chooseLargestFitting([input.betterBytes, input.worseBytes], input.targetBytes, input.skipsInARow, input.maxSkips);
  return c === 'skip' ? 'skip' : c === 0 ? 'better' : 'worse';
}
