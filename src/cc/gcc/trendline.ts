// The trendline estimator of the delay gradient (libwebrtc's default, in
// place of the draft's Kalman filter, draft-ietf-rmcat-gcc-02 5.3): the
// inter-group delay variations d(i) are summed into an accumulated delay,
// smoothed exponentially (coefficient 0.9), and the slope of the smoothed
// delay against arrival time over the last `windowSize` (20) groups, by least
// squares, is the trend: the rate at which the queue grows (ms per ms).
// The over-use detector compares the trend scaled by
// min(groups seen, 60) x `thresholdGain` (4), a value in ms, with its
// threshold; until the window is full the trend is 0.
import type { GroupDelta } from './arrival-groups.ts';

export interface TrendlineParameters {
  readonly windowSize: number;
  readonly smoothing: number;
  readonly thresholdGain: number;
}

export const TRENDLINE_DEFAULTS: TrendlineParameters = { windowSize: 20, smoothing: 0.9, thresholdGain: 4 };
/** The most deltas the scaled trend counts (libwebrtc's kMinNumDeltas). */
const MAX_COUNTED_DELTAS = 60;

export interface TrendEstimate {
  /** Slope of the smoothed accumulated delay, ms per ms. */
  readonly trend: number;
  /** trend x min(deltas, 60) x thresholdGain: what the detector compares with its threshold, ms. */
  readonly modifiedTrend: number;
  readonly deltas: number;
}

export class TrendlineEstimator {
  private readonly p: TrendlineParameters;
  private accumulatedMs = 0;
  private smoothedMs = 0;
  private firstArrivalMs: number | undefined;
  private readonly window: Array<{ x: number; y: number }> = [];
  private deltas = 0;
  private trend = 0;

  constructor(parameters: Partial<TrendlineParameters> = {}) {
    this.p = { ...TRENDLINE_DEFAULTS, ...parameters };
    if (!(Number.isInteger(this.p.windowSize) && this.p.windowSize >= 2)) throw new RangeError(`windowSize must be an integer >= 2, got ${this.p.windowSize}`);
    if (!(this.p.smoothing >= 0 && this.p.smoothing < 1)) throw new RangeError(`smoothing must be in [0, 1), got ${this.p.smoothing}`);
  }

  update(delta: GroupDelta): TrendEstimate {
    this.deltas++;
    this.firstArrivalMs ??= delta.arrivalTimeMs;
    this.accumulatedMs += delta.delayVariationMs;
    this.smoothedMs = this.p.smoothing * this.smoothedMs + (1 - this.p.smoothing) * this.accumulatedMs;
    this.window.push({ x: delta.arrivalTimeMs - this.firstArrivalMs, y: this.smoothedMs });
    if (this.window.length > this.p.windowSize) this.window.shift();
    if (this.window.length === this.p.windowSize) {
      const slope = leastSquaresSlope(this.window);
      if (slope !== undefined) this.trend = slope;
    }
    return this.estimate();
  }

  estimate(): TrendEstimate {
    return { trend: this.trend, modifiedTrend: Math.min(this.deltas, MAX_COUNTED_DELTAS) * this.trend * this.p.thresholdGain, deltas: this.deltas };
  }
}

/** Slope of y against x by ordinary least squares; undefined when all x are equal. */
export function leastSquaresSlope(points: ReadonlyArray<{ x: number; y: number }>): number | undefined {
  let sx = 0;
  let sy = 0;
  for (const { x, y } of points) {
    sx += x;
    sy += y;
  }
  const mx = sx / points.length;
  const my = sy / points.length;
  let num = 0;
  let den = 0;
  for (const { x, y } of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) * (x - mx);
  }
  return den === 0 ? undefined : num / den;
}
