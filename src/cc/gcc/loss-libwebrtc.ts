// GCC's classic loss-based rule, libwebrtc's SendSideBandwidthEstimation
// (send_side_bandwidth_estimation.cc, UpdatePacketsLost / UpdateEstimate;
// goog_cc_network_control.cc counts the losses of the transport feedback and
// reports them once a second). goog_cc ran it by default until LossBasedBweV2
// became the default (libwebrtc e04726281c, December 2022); it still leads
// until LossBasedBweV2 is ready (loss-send-side.ts). `gcc-classic-loss` runs
// it alone:
// - the loss fraction is formed at most once per `reportIntervalMs` (1 s),
//   from the packets reported since the last one, once they number at least
//   `minPackets` (20); as libwebrtc, in 1/256ths;
// - for the first `startPhaseMs` (2 s) after the first report, while no loss
//   has been seen, the rule does not limit (the delay-based estimate and
//   probing lead);
// - loss <= 2 %: the estimate is 1.08 x the lowest target of the last second,
//   plus 1 kbit/s (so that it may rise 8 % a second, but never runs ahead of
//   what was really sent);
// - 2 % to 10 %: unchanged;
// - over 10 %: target x (1 - fraction / 2), once per fraction, and at most
//   once per 300 ms + RTT.
// It acts on the sender's target (the lower of this and the delay-based
// estimate), as libwebrtc's current_target_ is; the sender's target is then
// min(this, delay-based). Pure: counts, times and rates in.

export interface LibwebrtcLossParameters {
  readonly reportIntervalMs: number;
  readonly minPackets: number;
  readonly startPhaseMs: number;
  readonly lowLoss: number;
  readonly highLoss: number;
  readonly increase: number;
  readonly increaseBps: number;
  readonly historyMs: number;
  readonly decreaseIntervalMs: number;
}

export const LIBWEBRTC_LOSS_DEFAULTS: LibwebrtcLossParameters = {
  reportIntervalMs: 1000, minPackets: 20, startPhaseMs: 2000, lowLoss: 0.02, highLoss: 0.1, increase: 1.08, increaseBps: 1000, historyMs: 1000, decreaseIntervalMs: 300,
};

/**
 * Which branch of UpdateEstimate the last update took: the start phase (the
 * rule does not limit), no loss fraction formed yet (the estimate holds), or
 * the rule itself.
 */
export type LibwebrtcLossPhase = 'start' | 'no-fraction' | 'rule';

export class LibwebrtcLossController {
  private readonly p: LibwebrtcLossParameters;
  private estimate = Infinity;
  private lost = 0;
  private expected = 0;
  private nextReportMs: number | undefined;
  private firstReportMs: number | undefined;
  /** The last fraction formed, in 1/256ths, and whether it has cut the rate yet. */
  private fractionQ8 = 0;
  private decreasedSinceFraction = false;
  private lastDecreaseMs = -Infinity;
  private hasFraction = false;
  private phase: LibwebrtcLossPhase = 'no-fraction';
  /** (time, target) pairs, increasing targets: the lowest target of the last second is the first. */
  private readonly history: Array<{ t: number; bps: number }> = [];

  constructor(private readonly limits: { readonly minBitrate: number; readonly maxBitrate: number }, parameters: Partial<LibwebrtcLossParameters> = {}) {
    this.p = { ...LIBWEBRTC_LOSS_DEFAULTS, ...parameters };
  }

  /** The loss-based estimate, bit/s (Infinity while it does not limit). */
  bitrate(): number {
    return this.estimate;
  }

  /** The branch the last update took (see LibwebrtcLossPhase). */
  lastPhase(): LibwebrtcLossPhase {
    return this.phase;
  }

  /** The last loss fraction formed (0 to 1), if any. */
  lossFraction(): number | undefined {
    return this.hasFraction ? this.fractionQ8 / 256 : undefined;
  }

  /**
   * One feedback report: its lost and reported counts at `nowMs`, the
   * sender's target and the delay-based estimate now (bit/s), the RTT (ms).
   * Returns the loss-based estimate.
   */
  update(lost: number, reported: number, nowMs: number, target: number, delayBased: number, rttMs: number): number {
    this.lost += lost;
    this.expected += reported;
    this.firstReportMs ??= nowMs;
    if (this.nextReportMs === undefined || nowMs > this.nextReportMs) {
      this.nextReportMs = nowMs + this.p.reportIntervalMs;
      if (this.expected >= this.p.minPackets) {
        this.fractionQ8 = Math.min(255, Math.floor((this.lost * 256) / this.expected));
        this.hasFraction = true;
        this.decreasedSinceFraction = false;
        this.lost = 0;
        this.expected = 0;
      }
    }
    if (this.fractionQ8 === 0 && nowMs - this.firstReportMs < this.p.startPhaseMs) {
      this.estimate = Infinity;
      this.history.length = 0;
      this.phase = 'start';
      return this.estimate;
    }
    this.recordTarget(nowMs, target);
    this.phase = this.hasFraction ? 'rule' : 'no-fraction';
    if (!this.hasFraction) return this.estimate;
    const loss = this.fractionQ8 / 256;
    if (loss <= this.p.lowLoss) {
      this.estimate = this.history[0]!.bps * this.p.increase + this.p.increaseBps;
    } else if (loss > this.p.highLoss && !this.decreasedSinceFraction && nowMs - this.lastDecreaseMs >= this.p.decreaseIntervalMs + rttMs) {
      this.lastDecreaseMs = nowMs;
      this.decreasedSinceFraction = true;
      this.estimate = (target * (512 - this.fractionQ8)) / 512;
    }
    this.estimate = Math.max(this.limits.minBitrate, Math.min(this.estimate, delayBased, this.limits.maxBitrate));
    return this.estimate;
  }

  /** libwebrtc's sliding minimum of the target over the last second. */
  private recordTarget(nowMs: number, target: number): void {
    const h = this.history;
    while (h.length > 0 && nowMs - h[0]!.t + 1 > this.p.historyMs) h.shift();
    while (h.length > 0 && target <= h[h.length - 1]!.bps) h.pop();
    h.push({ t: nowMs, bps: target });
  }
}
