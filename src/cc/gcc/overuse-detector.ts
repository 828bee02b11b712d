// The over-use detector with its adaptive threshold (draft-ietf-rmcat-gcc-02,
// 5.4). The estimate m(i) (here the trendline's scaled trend, ms) is compared
// with the threshold del_var_th(i):
// - m(i) > del_var_th: over-use is signalled once it has lasted more than
//   `overuseTimeMs` (10 ms, summed over the inter-group send times, starting
//   from half the first) and at least two estimates, and m(i) is not falling;
//   until then the signal stays what it was;
// - m(i) < -del_var_th: under-use;
// - otherwise: normal.
// The threshold follows |m(i)|:
//   del_var_th(i) = del_var_th(i-1) + dt x K(i) x (|m(i)| - del_var_th(i-1)),
// K = K_u (0.01) when |m(i)| exceeds it, K_d (0.00018) otherwise, dt the ms
// since its last update (at most 100), clamped to [6, 600] ms, and not
// updated at all when |m(i)| exceeds it by more than 15 ms (a spike: a route
// change, not a queue), so that it rises with a persistent trend (a
// competing loss-based flow keeps the queue full) and falls back slowly.
// Initial threshold 12.5 ms.

export type Usage = 'normal' | 'overuse' | 'underuse';

export interface DetectorParameters {
  readonly initialThresholdMs: number;
  readonly kUp: number;
  readonly kDown: number;
  readonly overuseTimeMs: number;
  readonly minThresholdMs: number;
  readonly maxThresholdMs: number;
  readonly maxAdaptOffsetMs: number;
  readonly maxAdaptIntervalMs: number;
}

export const DETECTOR_DEFAULTS: DetectorParameters = {
  initialThresholdMs: 12.5,
  kUp: 0.01,
  kDown: 0.00018,
  overuseTimeMs: 10,
  minThresholdMs: 6,
  maxThresholdMs: 600,
  maxAdaptOffsetMs: 15,
  maxAdaptIntervalMs: 100,
};

export class OveruseDetector {
  private readonly p: DetectorParameters;
  private thresholdMs: number;
  private lastThresholdUpdateMs: number | undefined;
  private overuseMs: number | undefined;
  private overuseCount = 0;
  private previousEstimate = 0;
  private usage: Usage = 'normal';

  constructor(parameters: Partial<DetectorParameters> = {}) {
    this.p = { ...DETECTOR_DEFAULTS, ...parameters };
    this.thresholdMs = this.p.initialThresholdMs;
  }

  threshold(): number {
    return this.thresholdMs;
  }

  state(): Usage {
    return this.usage;
  }

  /**
   * One estimate `m` (ms), `sendDeltaMs` after the previous group (inter-group
   * send time), at `nowMs` (any clock that moves forward). Returns the signal.
   */
  detect(m: number, sendDeltaMs: number, nowMs: number): Usage {
    const th = this.thresholdMs;
    if (m > th) {
      this.overuseMs = this.overuseMs === undefined ? sendDeltaMs / 2 : this.overuseMs + sendDeltaMs;
      this.overuseCount++;
      if (this.overuseMs > this.p.overuseTimeMs && this.overuseCount > 1 && m >= this.previousEstimate) {
        this.overuseMs = 0;
        this.overuseCount = 0;
        this.usage = 'overuse';
      }
    } else if (m < -th) {
      this.overuseMs = undefined;
      this.overuseCount = 0;
      this.usage = 'underuse';
    } else {
      this.overuseMs = undefined;
      this.overuseCount = 0;
      this.usage = 'normal';
    }
    this.previousEstimate = m;
    this.adaptThreshold(m, nowMs);
    return this.usage;
  }

  private adaptThreshold(m: number, nowMs: number): void {
    const last = this.lastThresholdUpdateMs ?? nowMs;
    const size = Math.abs(m);
    if (size > this.thresholdMs + this.p.maxAdaptOffsetMs) {
      this.lastThresholdUpdateMs = nowMs;
      return;
    }
    const k = size < this.thresholdMs ? this.p.kDown : this.p.kUp;
    const dt = Math.min(Math.max(0, nowMs - last), this.p.maxAdaptIntervalMs);
    this.thresholdMs += k * (size - this.thresholdMs) * dt;
    this.thresholdMs = Math.min(this.p.maxThresholdMs, Math.max(this.p.minThresholdMs, this.thresholdMs));
    this.lastThresholdUpdateMs = nowMs;
  }
}
