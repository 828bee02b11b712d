// How long encodes and decodes take in the simulator's virtual time.
//
// PLACEHOLDER CALIBRATION (to be replaced by the VP8 helper's measurements):
// the figures for a 1280x720 frame on one core are 12-16 ms for *both*
// of Salsify's encodings together and 1.3-2.3 ms per decode. One encoding is
// modelled as
//     encodeMs = pixels / 921600 x (5.5 + 2.5 x (1 - q / 127)) x (1.5 if key frame)
// so a typical pair (q ~ 30 and ~ 70) costs 7.4 + 6.6 = 14 ms at 720p, and the
// extremes (both at q 0 / both at q 127) 16 / 11 ms. One decode is
//     decodeMs = pixels / 921600 x (1.3 + 1.0 x (1 - q / 127))
// i.e. 1.3 ms (q 127) to 2.3 ms (q 0) at 720p. Both scale linearly with the
// pixel count (libvpx's work is per macroblock).

export const REFERENCE_PIXELS = 1280 * 720;

function checkArgs(width: number, height: number, quantizer: number): void {
  if (!(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0)) throw new RangeError(`picture size must be positive integers, got ${width}x${height}`);
  if (!(Number.isInteger(quantizer) && quantizer >= 0 && quantizer <= 127)) throw new RangeError(`quantizer must be an integer in 0..127, got ${quantizer}`);
}

/** Modelled time of one encoding, milliseconds. */
export function modelledEncodeMs(width: number, height: number, quantizer: number, keyFrame = false): number {
  checkArgs(width, height, quantizer);
  return ((width * height) / REFERENCE_PIXELS) * (5.5 + 2.5 * (1 - quantizer / 127)) * (keyFrame ? 1.5 : 1);
}

/** Modelled time of one decode, milliseconds. */
export function modelledDecodeMs(width: number, height: number, quantizer: number): number {
  checkArgs(width, height, quantizer);
  return ((width * height) / REFERENCE_PIXELS) * (1.3 + 1.0 * (1 - quantizer / 127));
}
