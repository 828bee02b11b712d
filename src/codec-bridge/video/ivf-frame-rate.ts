// The frame rate of an IVF stream, derived from its frame timestamps. An IVF header holds a time
// base (rate/scale: a timestamp t is t * scale / rate seconds), not a frame rate: vpxenc, and ffmpeg
// encoding straight to IVF, make one tick one frame (time base 1/25, timestamps 0, 1, 2, ...), but
// ffmpeg remuxing WebM or Matroska writes 1/1000 with timestamps in milliseconds (0, 40, 80, ... at
// 25 fps; 0, 33, 67, 100, ... at 30 fps), which read as a frame rate is 1000 frames per second.
// So, as ffprobe does, the rate comes from the timestamps:
// - a constant rate when there is one (ffprobe's r_frame_rate, when it equals its avg_frame_rate):
//   the rate R at which frame i lies i / R seconds after frame 0, for every frame, give or take the
//   one tick that rounding (or truncating) times to the time base costs. Candidates are the time base
//   itself and the common rates (whole numbers of frames per second up to 240, and the NTSC rates
//   N * 1000/1001); the best fitting one is taken;
// - otherwise (a variable rate, or frames missing from the stream) the average rate,
//   (frames - 1) / (last timestamp - first timestamp) (ffprobe's avg_frame_rate).
import type { Rational } from './rational.ts';

export interface IvfFrameRate {
  /** Frames per second. */
  readonly fps: number;
  /** How it was found: a constant rate that fits every timestamp, the average over the clip, or the header (one frame). */
  readonly basis: 'constant' | 'average' | 'header';
}

/** Frame rates a header's time base is taken as when the file has one frame only (larger ones are clock rates). */
export const MAX_HEADER_FRAME_RATE = 240;

const COMMON_RATES: readonly Rational[] = [
  ...Array.from({ length: MAX_HEADER_FRAME_RATE }, (_, k) => ({ num: k + 1, den: 1 })),
  ...[24, 30, 48, 60, 120, 240].map((n) => ({ num: n * 1000, den: 1001 })),
];

const HINT = 'give the frame rate instead (the fps option)';

/**
 * The frame rate of frames stamped `timestamps` (in file order) in the time base rate/scale of the
 * header. `name` names the file in errors: timestamps that do not increase, or one frame whose time
 * base is no plausible frame rate.
 */
export function ivfFrameRate(timestamps: readonly number[], timeBase: { readonly rate: number; readonly scale: number }, name: string): IvfFrameRate {
  const { rate, scale } = timeBase;
  const n = timestamps.length;
  if (n === 0) throw new RangeError(`${name}: no frames, so no frame rate`);
  if (n === 1) {
    if (rate / scale > MAX_HEADER_FRAME_RATE) {
      throw new Error(
        `${name}: the frame rate cannot be derived from a single frame, and the IVF header's time base ${scale}/${rate} s ` +
          `(${formatRate(rate / scale)} ticks/s) is no frame rate; ${HINT}`,
      );
    }
    return { fps: rate / scale, basis: 'header' };
  }
  for (let i = 1; i < n; i++) {
    if (!(timestamps[i] > timestamps[i - 1])) {
      throw new Error(
        `${name}: frame ${i}: IVF frame field timestamp is ${timestamps[i]}, not after frame ${i - 1}'s ${timestamps[i - 1]}, ` +
          `so the frame rate cannot be derived from the timestamps; ${HINT}`,
      );
    }
  }
  const first = timestamps[0];
  const span = timestamps[n - 1] - first;
  let best: { fps: number; spread: number } | null = null;
  for (const candidate of [{ num: rate, den: scale }, ...COMMON_RATES]) {
    // One frame period in ticks: (den / num) s divided by (scale / rate) s per tick.
    const period = (candidate.den * rate) / (candidate.num * scale);
    const spread = misfit(timestamps, first, period, best?.spread ?? 1);
    if (spread !== null && (best === null || spread < best.spread)) best = { fps: candidate.num / candidate.den, spread };
  }
  if (best !== null) return { fps: best.fps, basis: 'constant' };
  return { fps: ((n - 1) * rate) / (scale * span), basis: 'average' };
}

/**
 * How far the timestamps stray from a grid of one frame per `period` ticks starting at `first`:
 * the spread (largest minus smallest deviation, in ticks), or null as soon as it exceeds `limit`.
 */
function misfit(timestamps: readonly number[], first: number, period: number, limit: number): number | null {
  const tolerance = limit + 1e-9;
  let low = 0;
  let high = 0;
  for (let i = 1; i < timestamps.length; i++) {
    const deviation = timestamps[i] - first - i * period;
    if (deviation < low) low = deviation;
    if (deviation > high) high = deviation;
    if (high - low > tolerance) return null;
  }
  return high - low;
}

function formatRate(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(6);
}
