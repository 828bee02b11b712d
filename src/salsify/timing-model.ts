// How long encodes and decodes take in the simulator's virtual time.
//
// Encode: the codec bridge's measured libvpx model (src/codec-bridge/
// encode-time-model.ts: one VP8 encoder at speed -8 on one core, FourPeople
// clip; at 1280x720 about 6.2 ms per inter frame at quantizer 8 down to
// 3.2 ms at 127, scaled by (pixels / 921600)^0.92). Key frames are assumed to
// cost 1.5 times an inter frame at the same quantizer (not measured).
// Salsify-1's two serial encodings of a 720p frame thus take about 8 ms here,
// against 12-16 ms on the paper's machine.
//
// Decode (placeholder from the figures, not measured here): 1.3 ms at
// quantizer 127 to 2.3 ms at quantizer 0 for a 720p frame, linear in between,
// scaled by the pixel count:
//     decodeMs = pixels / 921600 x (1.3 + 1.0 x (1 - q / 127))
// The receiver does not know a frame's quantizer, so it models decode time
// from the frame's size instead (entropy decoding grows with the bits):
//     decodeMs = pixels / 921600 x (1.3 + 1.0 x min(1, bytes / (pixels / 8)))
import { modelEncodeMs } from '../codec-bridge/encode-time-model.ts';

export const REFERENCE_PIXELS = 1280 * 720;
export const KEY_FRAME_ENCODE_FACTOR = 1.5;

function checkArgs(width: number, height: number, quantizer: number): void {
  if (!(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0)) throw new RangeError(`picture size must be positive integers, got ${width}x${height}`);
  if (!(Number.isInteger(quantizer) && quantizer >= 0 && quantizer <= 127)) throw new RangeError(`quantizer must be an integer in 0..127, got ${quantizer}`);
}

/** Modelled time of one encoding, milliseconds. */
export function modelledEncodeMs(width: number, height: number, quantizer: number, keyFrame = false): number {
  checkArgs(width, height, quantizer);
  return modelEncodeMs(width, height, quantizer) * (keyFrame ? KEY_FRAME_ENCODE_FACTOR : 1);
}

/** Modelled time of one decode, milliseconds. */
export function modelledDecodeMs(width: number, height: number, quantizer: number): number {
  checkArgs(width, height, quantizer);
  return ((width * height) / REFERENCE_PIXELS) * (1.3 + 1.0 * (1 - quantizer / 127));
}

/** Modelled time of one decode from the frame's size (see above), milliseconds. */
export function modelledDecodeMsForFrame(width: number, height: number, frame: Uint8Array): number {
  const low = modelledDecodeMs(width, height, 127);
  const high = modelledDecodeMs(width, height, 0);
  return low + (high - low) * Math.min(1, frame.length / ((width * height) / 8));
}
