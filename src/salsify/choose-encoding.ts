// Salsify's per-frame choice: send the larger encoding (normally the better) that fits the
// target size, else the smaller, else skip the frame; after `maxSkips` skips in
// a row the worse encoding is sent anyway.

export type Choice = 'better' | 'worse' | 'skip';

export interface ChoiceInput {
  readonly betterBytes: number;
  readonly worseBytes: number;
  readonly targetBytes: number;
  /** Frames skipped in a row just before this one. */
  readonly skipsInARow: number;
  readonly maxSkips?: number;
}

export const DEFAULT_MAX_SKIPS = 3;

export function chooseEncoding(input: ChoiceInput): Choice {
  const maxSkips = input.maxSkips ?? DEFAULT_MAX_SKIPS;
  const betterFits = input.betterBytes <= input.targetBytes;
  const worseFits = input.worseBytes <= input.targetBytes;
  if (betterFits && worseFits) return input.worseBytes > input.betterBytes ? 'worse' : 'better';
  if (betterFits) return 'better';
  if (worseFits) return 'worse';
  return input.skipsInARow >= maxSkips ? 'worse' : 'skip';
}
