// A frame number stamped into a picture as a block barcode across the top, so
// that a black-box bench can tell which source frame a browser captured,
// encoded or displayed. The strip is one row of 20 square cells of width
// floor(width / 20) (rounded down to even), in luma only (chroma grey):
//
//   cell:   0      1      2 ............ 17   18      19
//         white  black   16 bits, MSB first  parity  black
//
// A bit is a white (1) or black (0) cell; parity is white when the 16 bits
// hold an odd number of ones. The decoder measures the middle half of every
// cell, sets its threshold between the two sync cells (0 and 1), and refuses
// a strip whose sync cells, contrast, any cell's clarity or parity is wrong,
// so a picture without a barcode (or a blurred one) reads as null, not as a
// wrong number. Cells this large survive Chromium's downscaling of a 640x360
// camera to 320x180 and its encoders at low bitrates.
//
// `decodeBarcodeLuma` is self-contained (no imports, no helpers, no nested
// functions): the bench's pages run its source text in the browser, so the
// browser and Node read barcodes with the very same code.
import type { Picture } from '../codec-bridge/types.ts';

export const BARCODE_CELLS = 20;
export const BARCODE_BITS = 16;
/** The largest frame number a barcode holds. */
export const BARCODE_MAX = (1 << BARCODE_BITS) - 1;
const WHITE = 235;
const BLACK = 16;

/** The width (and height) of a cell for a picture `width` pixels wide. */
export function barcodeCellSize(width: number): number {
  const cell = Math.floor(width / BARCODE_CELLS) & ~1;
  if (cell < 4) throw new RangeError(`barcode: a picture ${width} pixels wide is too narrow for ${BARCODE_CELLS} cells of at least 4 pixels`);
  return cell;
}

/** Rows at the top of the picture the barcode occupies (SSIM leaves them out). */
export function barcodeStripHeight(width: number, height: number): number {
  const cell = barcodeCellSize(width);
  if (cell * 2 > height) throw new RangeError(`barcode: a picture ${width}x${height} is too short for its ${cell}-row strip`);
  return cell;
}

/** The 20 cell values (true = white) of frame number `n`. */
export function barcodeCells(n: number): boolean[] {
  if (!Number.isInteger(n) || n < 0 || n > BARCODE_MAX) throw new RangeError(`barcode: frame number must be an integer in 0..${BARCODE_MAX}, got ${n}`);
  const bits: boolean[] = [];
  let ones = 0;
  for (let b = BARCODE_BITS - 1; b >= 0; b--) {
    const bit = ((n >> b) & 1) === 1;
    bits.push(bit);
    if (bit) ones++;
  }
  return [true, false, ...bits, ones % 2 === 1, false];
}

/** Stamps frame number `n` into `picture` (I420, changed in place): the luma strip and the chroma above it. */
export function stampBarcode(picture: Picture, n: number): void {
  const { width, height, data } = picture;
  const strip = barcodeStripHeight(width, height);
  const cell = barcodeCellSize(width);
  const cells = barcodeCells(n);
  for (let y = 0; y < strip; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const c = Math.floor(x / cell);
      data[row + x] = c < BARCODE_CELLS && cells[c] ? WHITE : BLACK;
    }
  }
  const cw = (width + 1) >> 1;
  const ch = (height + 1) >> 1;
  const chromaRows = Math.min(ch, (strip + 1) >> 1);
  for (const base of [width * height, width * height + cw * ch]) data.fill(128, base, base + chromaRows * cw);
}

/**
 * Reads the frame number from a luma plane (`luma[y * stride + x]`, at least
 * the strip's rows), or null when there is no clear, consistent barcode.
 */
export function decodeBarcodeLuma(luma: ArrayLike<number>, width: number, height: number, stride: number): number | null {
  const CELLS = 20;
  const cell = Math.floor(width / CELLS) & ~1;
  if (cell < 4 || cell * 2 > height) return null;
  const x0 = cell >> 2;
  const x1 = cell - (cell >> 2);
  const y0 = cell >> 2;
  const y1 = cell - (cell >> 2);
  const means: number[] = [];
  for (let c = 0; c < CELLS; c++) {
    let sum = 0;
    let count = 0;
    for (let y = y0; y < y1; y++) {
      const row = y * stride + c * cell;
      for (let x = x0; x < x1; x++) {
        sum += luma[row + x];
        count++;
      }
    }
    means.push(sum / count);
  }
  const white = means[0];
  const black = means[1];
  const contrast = white - black;
  if (!(contrast >= 60)) return null;
  const threshold = (white + black) / 2;
  let n = 0;
  let ones = 0;
  for (let c = 0; c < CELLS; c++) {
    const m = means[c];
    // A cell nearer the threshold than a quarter of the contrast is unclear.
    if (Math.abs(m - threshold) < contrast / 4) return null;
    const bit = m > threshold;
    if (c >= 2 && c < 18) {
      n = n * 2 + (bit ? 1 : 0);
      if (bit) ones++;
    } else if (c === 18) {
      if (bit !== (ones % 2 === 1)) return null;
    } else if (c === 19 && bit) {
      return null;
    }
  }
  return n;
}

/** The frame number stamped in an I420 picture, or null. */
export function decodeBarcode(picture: Picture): number | null {
  return decodeBarcodeLuma(picture.data, picture.width, picture.height, picture.width);
}
