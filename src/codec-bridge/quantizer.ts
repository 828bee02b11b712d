// VP8 quantizer indices (0..127, the bitstream's and Salsify's scale) and
// libvpx's 0..63 quantizer levels, which reach only 64 of the indices.
import { nativeVp8 } from './native.ts';

let table: number[] | null = null;

/** The VP8 quantizer index of each libvpx level 0..63 (strictly increasing, 0 to 127). */
export function levelIndices(): readonly number[] {
  table ??= nativeVp8().levelTable();
  return table;
}

/** The libvpx level whose index is nearest to `quantizer` (ties go to the finer one). */
export function levelForQuantizer(quantizer: number): number {
  if (!Number.isInteger(quantizer) || quantizer < 0 || quantizer > 127) {
    throw new RangeError(`quantizer must be an integer in 0..127, got ${quantizer}`);
  }
  const indices = levelIndices();
  let best = 0;
  for (let level = 1; level < indices.length; level++) {
    if (Math.abs(indices[level] - quantizer) < Math.abs(indices[best] - quantizer)) best = level;
  }
  return best;
}

/** The quantizer index the codec actually uses when asked for `quantizer`. */
export function achievableQuantizer(quantizer: number): number {
  return levelIndices()[levelForQuantizer(quantizer)];
}
