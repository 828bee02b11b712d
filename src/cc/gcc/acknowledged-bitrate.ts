// The acknowledged bitrate as libwebrtc's goog_cc estimates it
// (acknowledged_bitrate_estimator.cc, bitrate_estimator.cc): the throughput
// the delay-based rate controller backs off from and limits its increase by,
// in place of the draft's received rate over a fixed window.
//
// The bytes of each acknowledged packet, by arrival time, are summed over
// windows of 150 ms (500 ms for the first sample); each window's rate is a
// sample, and the estimate follows the samples as a one-dimensional Bayesian
// (Kalman-like) filter: the sample's variance grows with its distance from
// the estimate, (10 x |estimate - sample| / estimate)^2, so that a sample far
// from the estimate moves it little, and the estimate's own variance grows by
// 5 per sample (the rate may change) from an initial 50. expectFastRateChange()
// adds 200 to that variance (libwebrtc: when the sender leaves ALR), so that
// the next samples move the estimate quickly. Rates in kbit/s inside, as
// libwebrtc keeps them; bitrate() in bit/s. Pure: times and sizes in.

export interface AcknowledgedBitrateParameters {
  readonly initialWindowMs: number;
  readonly windowMs: number;
  readonly uncertaintyScale: number;
  /** The scale for a sample below the estimate taken in ALR (libwebrtc's default: the same). */
  readonly uncertaintyScaleInAlr: number;
  readonly initialVariance: number;
  readonly variancePerSample: number;
  readonly fastChangeVariance: number;
}

export const ACKNOWLEDGED_BITRATE_DEFAULTS: AcknowledgedBitrateParameters = {
  initialWindowMs: 500, windowMs: 150, uncertaintyScale: 10, uncertaintyScaleInAlr: 10, initialVariance: 50, variancePerSample: 5, fastChangeVariance: 200,
};

export class AcknowledgedBitrateEstimator {
  private readonly p: AcknowledgedBitrateParameters;
  private sumBytes = 0;
  private windowMs = 0;
  private previousMs: number | undefined;
  private estimateKbps: number | undefined;
  private variance: number;

  constructor(parameters: Partial<AcknowledgedBitrateParameters> = {}) {
    this.p = { ...ACKNOWLEDGED_BITRATE_DEFAULTS, ...parameters };
    this.variance = this.p.initialVariance;
  }

  /** bit/s, or undefined before the first window closed. */
  bitrate(): number | undefined {
    return this.estimateKbps === undefined ? undefined : this.estimateKbps * 1000;
  }

  /** A packet of `sizeBytes` acknowledged as arrived at `arrivalMs` (in arrival order). */
  add(arrivalMs: number, sizeBytes: number, inAlr = false): void {
    const windowMs = this.estimateKbps === undefined ? this.p.initialWindowMs : this.p.windowMs;
    const sample = this.closeWindow(arrivalMs, sizeBytes, windowMs);
    if (sample === undefined) return;
    if (this.estimateKbps === undefined) {
      this.estimateKbps = sample;
      return;
    }
    const scale = inAlr && sample < this.estimateKbps ? this.p.uncertaintyScaleInAlr : this.p.uncertaintyScale;
    const uncertainty = (scale * Math.abs(this.estimateKbps - sample)) / this.estimateKbps;
    const sampleVariance = uncertainty * uncertainty;
    const predicted = this.variance + this.p.variancePerSample;
    this.estimateKbps = (sampleVariance * this.estimateKbps + predicted * sample) / (sampleVariance + predicted);
    this.variance = (sampleVariance * predicted) / (sampleVariance + predicted);
  }

  /** The next samples may move the estimate fast (the sender left ALR). */
  expectFastRateChange(): void {
    this.variance += this.p.fastChangeVariance;
  }

  /** Adds the packet to the current window; returns the window's rate (kbit/s) when this packet closes it. */
  private closeWindow(nowMs: number, bytes: number, windowMs: number): number | undefined {
    if (this.previousMs !== undefined && nowMs < this.previousMs) {
      this.previousMs = undefined;
      this.sumBytes = 0;
      this.windowMs = 0;
    }
    if (this.previousMs !== undefined) {
      this.windowMs += nowMs - this.previousMs;
      // Nothing for more than a window: what was summed says nothing of the rate now.
      if (nowMs - this.previousMs > windowMs) {
        this.sumBytes = 0;
        this.windowMs %= windowMs;
      }
    }
    this.previousMs = nowMs;
    let sample: number | undefined;
    if (this.windowMs >= windowMs) {
      sample = (8 * this.sumBytes) / windowMs;
      this.windowMs -= windowMs;
      this.sumBytes = 0;
    }
    this.sumBytes += bytes;
    return sample;
  }
}
