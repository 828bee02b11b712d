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
// Paper timing (--encode-timing paper): the encoder of the Salsify paper was
// much slower than libvpx at speed -8. Calibrated on the paper's own runs on
// the unconstrained 12 Mbit/s on-off link: a median of about 83 ms between
// displayed frames for Salsify-1 and 50 ms for Salsify-2 (about 12 and 20
// fps), and 5th-percentile frame delays of 173 and 113 ms once the bench's
// 66.7 ms are subtracted. Under the reference frame clock (an encode starts
// when the previous one has finished, on the next camera frame: sender.ts), a
// frame whose encodings take E ms is followed by the next after
// ceil(E / 16.68) frame intervals. Salsify-2 (two encodings at once, E = T)
// at 50 ms = 3 intervals needs 33.4 < T <= 50.0; Salsify-1 (two in a row,
// E = 2T) at 83.4 ms = 5 intervals needs 33.4 < T <= 41.7; the p5 delays
// (about T or 2T, plus the path and the decode) point to 35-40 ms. So one
// 720p encoding takes PAPER_ENCODE_MS_720P = 38 ms here, whatever its
// quantizer (the paper gives no dependence), scaled by the pixel count, and a
// key frame 1.5 times that, as in the libvpx model.
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

/** How encode time is modelled: today's measured libvpx (the default), or the paper's encoder (see above). */
export const ENCODE_TIMINGS = ['libvpx', 'paper'] as const;
export type EncodeTimingModel = (typeof ENCODE_TIMINGS)[number];

/** One 720p encoding of the paper's encoder, ms (calibration above). */
export const PAPER_ENCODE_MS_720P = 38;

/** Modelled time of one encoding by the paper's encoder, milliseconds. */
export function paperEncodeMs(width: number, height: number, quantizer: number, keyFrame = false): number {
  checkArgs(width, height, quantizer);
  return PAPER_ENCODE_MS_720P * ((width * height) / REFERENCE_PIXELS) * (keyFrame ? KEY_FRAME_ENCODE_FACTOR : 1);
}

/** The encode-time function of a timing model. */
export function encodeTimeFunction(model: EncodeTimingModel): (width: number, height: number, quantizer: number, keyFrame: boolean) => number {
  if (model === 'paper') return paperEncodeMs;
  if (model === 'libvpx') return modelledEncodeMs;
  throw new RangeError(`unknown encode timing ${JSON.stringify(model)} (expected ${ENCODE_TIMINGS.join(' or ')})`);
}

/**
 * Time from the start of one frame's encodings to the next frame's under the
 * reference frame clock (the next encode waits for the next camera frame):
 * the encodings' time rounded up to whole frame intervals.
 */
export function referenceFrameCycleMs(encodingsMs: number, frameIntervalMs: number): number {
  return Math.max(1, Math.ceil(encodingsMs / frameIntervalMs - 1e-9)) * frameIntervalMs;
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
