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
// the unconstrained 12 Mbit/s on-off link only (excamera/salsify-results,
// benchmarks/12mbps/salsify-{1,2}-onoff.2018-01-29, the runs of the paper's
// on-off rows), together with the paper's camera and display, which
// --encode-timing paper brings (sim-runner.ts PAPER_PIPELINE; the camera in
// sender.ts, 'single-buffer'). Under that camera an encode starts when a
// camera frame completes whose scan began after the previous encodings ended,
// so encodings of E ms give a cycle of ceil(E / I + 1) frame intervals I
// (16.68 ms), and the frame encoded is one cycle old. The paper's runs show
// a median of 83.4 ms between displayed frames for Salsify-1 and 50.0 for
// Salsify-2: 5 and 3 intervals, so 3I < 2T (Salsify-1, two encodings in a
// row) and T <= 2I (Salsify-2, two at once): 25.03 < T <= 33.4 ms. Within
// that range the delays of the frames shown fix T: their 5th percentile and
// median (paper, minus the bench's 66.733 ms: 173 / 207 ms for Salsify-1,
// 113 / 147 for Salsify-2) are approached best at the lower end (over
// [62, 702) s, 26 ms: 174 / 210 and 119 / 149 here; 30 ms: 183 / 218 and
// 123 / 153; bench/salsify-pipeline-calibration.ts). So one 720p encoding takes
// PAPER_ENCODE_MS_720P = 26 ms here, whatever its quantizer (the paper gives
// no dependence), scaled by the pixel count, and a key frame 1.5 times that,
// as in the libvpx model. (Before the camera was modelled, the next-frame
// clock and 38 ms gave the same cycles but frames 50 and 30 ms too young.)
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

/** One 720p encoding of the paper's encoder, ms (calibration above, with the paper's camera and display). */
export const PAPER_ENCODE_MS_720P = 26;

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
 * next-frame clock (the next encode waits for the next camera frame): the
 * encodings' time rounded up to whole frame intervals.
 */
export function referenceFrameCycleMs(encodingsMs: number, frameIntervalMs: number): number {
  return Math.max(1, Math.ceil(encodingsMs / frameIntervalMs - 1e-9)) * frameIntervalMs;
}

/**
 * The same under the paper's single-buffer camera (sender.ts): the next
 * encode waits for a camera frame whose scan starts once the encodings are
 * done, so one interval more, rounded up to whole intervals.
 */
export function singleBufferFrameCycleMs(encodingsMs: number, frameIntervalMs: number): number {
  return (Math.ceil(encodingsMs / frameIntervalMs - 1e-9) + 1) * frameIntervalMs;
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
