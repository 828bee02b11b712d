// libwebrtc's LossBasedBweV2 (goog_cc/loss_based_bwe_v2.cc,
// UpdateBandwidthEstimate, GetCandidates, GetCandidateBandwidthUpperBound,
// CalculateInstantUpperBound, IsEstimateIncreasingWhenLossLimited), in its
// default configuration (loss-v2-config.ts), for one sender:
//
// - On each feedback report, its packets go into the observation window
//   (loss-v2-observations.ts); only when they complete an observation is the
//   estimate updated.
// - The first observation starts the estimate at the delay-based estimate.
// - Candidates: the current estimate x 1.02, 1, 0.95; the acknowledged rate
//   (not in ALR); the delay-based estimate when above the current estimate;
//   each capped at max(current, upper bound), where the upper bound is the
//   maximum bitrate, or while loss-limited the bandwidth limit of the current
//   window. Each candidate's inherent loss takes one Newton step
//   (loss-v2-likelihood.ts); the candidate of highest objective wins.
// - It may not rise while the average reported loss exceeds its inherent loss.
//   While loss-limited it may rise at most to the window's limit (1.3 x the
//   estimate when the 300 ms window began), and never above 1e6 x the
//   acknowledged rate.
// - The result is min(estimate, instant upper bound, delay-based estimate),
//   at least the minimum bitrate. The instant upper bound is
//   75 kbit/s / (average loss - 5 %) once the average loss exceeds 5 %.
// - State: kIncreasing while loss-limited and rising, kDecreasing when below
//   the delay-based estimate (and the maximum) otherwise, else
//   kDelayBasedEstimate (not loss-limited).
// - The result is used once 3 observations were made.
// Times in µs (send times), rates in whole bit/s as libwebrtc's DataRate.
// Pure: reports, rates and flags in; the estimate and state out.
import { CONGESTION_CONTROLLER_MIN_BITRATE, divideRate, LOSS_BWE_V2_DEFAULTS, scaleRate, type LossBasedBweV2Config } from './loss-v2-config.ts';
import { feasibleInherentLoss, newtonsMethodUpdate, objective, type ChannelParameters } from './loss-v2-likelihood.ts';
import { ObservationWindow, type LossPacketResult } from './loss-v2-observations.ts';

export type LossBasedState = 'increasing' | 'decreasing' | 'delay-based';

export interface LossBasedResult {
  /** bit/s (Infinity when not ready and no delay-based estimate). */
  readonly bandwidthEstimate: number;
  readonly state: LossBasedState;
}

export class LossBasedBweV2 {
  private readonly config: LossBasedBweV2Config;
  private readonly window: ObservationWindow;
  private best: ChannelParameters;
  private result: LossBasedResult = { bandwidthEstimate: 0, state: 'delay-based' };
  private acknowledgedBitrate: number | undefined;
  private delayBasedEstimate = Infinity;
  private instantUpperBound: number | undefined;
  private recoveringAfterLossUs = -Infinity;
  private bandwidthLimitInCurrentWindow = Infinity;
  private readonly minBitrate: number;
  private readonly maxBitrate: number;

  /** `limits`: libwebrtc's SetMinMaxBitrate (bit/s; the maximum may be Infinity). */
  constructor(limits: { readonly minBitrate: number; readonly maxBitrate: number }, config: Partial<LossBasedBweV2Config> = {}) {
    this.config = { ...LOSS_BWE_V2_DEFAULTS, ...config };
    this.window = new ObservationWindow(this.config);
    this.best = { inherentLoss: this.config.initialInherentLossEstimate, lossLimitedBandwidth: -Infinity };
    this.minBitrate = limits.minBitrate;
    this.maxBitrate = limits.maxBitrate;
  }

  /** Enough observations and an estimate (libwebrtc's IsReady). */
  isReady(): boolean {
    return Number.isFinite(this.best.lossLimitedBandwidth) && this.window.numObservations() >= this.config.minNumObservations;
  }

  /** libwebrtc's GetLossBasedResult: the delay-based estimate until ready. */
  lossBasedResult(): LossBasedResult {
    if (!this.isReady()) return { bandwidthEstimate: this.delayBasedEstimate, state: 'delay-based' };
    return this.result;
  }

  /** The best channel parameters now (for tests and logs). */
  channel(): ChannelParameters {
    return this.best;
  }

  /** libwebrtc's SetBandwidthEstimate ("for unit testing only"): the estimate, not loss-limited. */
  setBandwidthEstimate(bps: number): void {
    if (!Number.isFinite(bps)) return;
    this.best = { ...this.best, lossLimitedBandwidth: bps };
    this.result = { bandwidthEstimate: bps, state: 'delay-based' };
  }

  setAcknowledgedBitrate(bps: number): void {
    if (Number.isFinite(bps)) this.acknowledgedBitrate = bps;
  }

  /** One feedback report's packets, the delay-based estimate now (bit/s; Infinity: none) and whether the sender is in ALR. */
  update(packets: readonly LossPacketResult[], delayBasedEstimate: number, inAlr: boolean): void {
    this.delayBasedEstimate = delayBasedEstimate;
    if (packets.length === 0 || !this.window.push(packets)) return;
    this.updateInstantUpperBound();
    if (!Number.isFinite(this.best.lossLimitedBandwidth)) {
      if (!Number.isFinite(delayBasedEstimate)) return;
      this.best = { ...this.best, lossLimitedBandwidth: delayBasedEstimate };
      this.result = { bandwidthEstimate: delayBasedEstimate, state: 'delay-based' };
    }
    const candidate = this.boundIncrease(this.bestCandidate(inAlr));
    const bounded = this.bound(candidate.lossLimitedBandwidth);
    this.best = candidate;
    this.result = { bandwidthEstimate: bounded, state: this.nextState(bounded) };
    this.maybeStartIncreaseWindow();
  }

  /** The candidate of highest objective, each after its Newton step; the current estimate if none beats -max. */
  private bestCandidate(inAlr: boolean): ChannelParameters {
    const observations = this.window.weighted();
    const n = this.window.numObservations();
    const averageLoss = this.window.averageReportedLossRatio();
    let best = this.best;
    let max = -Number.MAX_VALUE;
    for (const start of this.candidates(inAlr)) {
      const candidate = newtonsMethodUpdate(this.config, observations, n, start);
      const value = objective(this.config, observations, averageLoss, candidate);
      if (value > max) {
        max = value;
        best = candidate;
      }
    }
    return best;
  }

  private candidates(inAlr: boolean): ChannelParameters[] {
    const current = this.best.lossLimitedBandwidth;
    const bandwidths = this.config.candidateFactors.map((f) => scaleRate(current, f));
    if (this.acknowledgedBitrate !== undefined && this.config.appendAcknowledgedRateCandidate && !(this.config.notUseAckedRateInAlr && inAlr)) {
      bandwidths.push(scaleRate(this.acknowledgedBitrate, this.config.bandwidthBackoffLowerBoundFactor));
    }
    if (Number.isFinite(this.delayBasedEstimate) && this.config.appendDelayBasedEstimateCandidate && this.delayBasedEstimate > current) {
      bandwidths.push(this.delayBasedEstimate);
    }
    const upper = this.inLossLimitedState() && Number.isFinite(this.bandwidthLimitInCurrentWindow) ? this.bandwidthLimitInCurrentWindow : this.maxBitrate;
    return bandwidths.map((b) => {
      const c = { ...this.best, lossLimitedBandwidth: Math.min(b, Math.max(current, upper)) };
      return { ...c, inherentLoss: feasibleInherentLoss(this.config, c) };
    });
  }

  /** The limits on a rise: no rise above the average loss, the window's limit, the acknowledged rate, and at least 1 bit/s out of kDecreasing. */
  private boundIncrease(candidate: ChannelParameters): ChannelParameters {
    const current = this.best.lossLimitedBandwidth;
    let b = candidate.lossLimitedBandwidth;
    if (this.window.averageReportedLossRatio() > candidate.inherentLoss && this.config.notIncreaseIfInherentLossLessThanAverageLoss && current < b) b = current;
    if (this.inLossLimitedState()) {
      const sendTime = this.window.lastObservationSendTimeUs();
      if (Number.isFinite(this.recoveringAfterLossUs) && this.recoveringAfterLossUs + this.config.delayedIncreaseWindowUs > sendTime && b > this.bandwidthLimitInCurrentWindow) {
        b = this.bandwidthLimitInCurrentWindow;
      }
      if (this.isIncreasingWhenLossLimited(current, b) && this.acknowledgedBitrate !== undefined) {
        b = Math.max(current, Math.min(b, scaleRate(this.acknowledgedBitrate, this.config.rampupUpperBoundFactor)));
        if (this.result.state === 'decreasing' && b === current) b = current + 1;
      }
    }
    return { ...candidate, lossLimitedBandwidth: b };
  }

  private bound(estimate: number): number {
    const upper = Number.isFinite(this.delayBasedEstimate) ? Math.min(estimate, this.instantUpperBoundOrMax(), this.delayBasedEstimate) : Math.min(estimate, this.instantUpperBoundOrMax());
    return Math.max(this.minBitrate, upper);
  }

  private nextState(bounded: number): LossBasedState {
    const below = bounded < this.delayBasedEstimate && bounded < this.maxBitrate;
    if (this.isIncreasingWhenLossLimited(this.result.bandwidthEstimate, bounded) && below) return 'increasing';
    return below ? 'decreasing' : 'delay-based';
  }

  /** While loss-limited, a new window of at most maxIncreaseFactor x the estimate every delayedIncreaseWindow. */
  private maybeStartIncreaseWindow(): void {
    const sendTime = this.window.lastObservationSendTimeUs();
    if (!this.inLossLimitedState()) return;
    if (Number.isFinite(this.recoveringAfterLossUs) && this.recoveringAfterLossUs + this.config.delayedIncreaseWindowUs >= sendTime) return;
    this.bandwidthLimitInCurrentWindow = Math.max(CONGESTION_CONTROLLER_MIN_BITRATE, scaleRate(this.best.lossLimitedBandwidth, this.config.maxIncreaseFactor));
    this.recoveringAfterLossUs = sendTime;
  }

  private isIncreasingWhenLossLimited(oldEstimate: number, newEstimate: number): boolean {
    return (oldEstimate < newEstimate || (oldEstimate === newEstimate && this.result.state === 'increasing')) && this.inLossLimitedState();
  }

  private inLossLimitedState(): boolean {
    return this.result.state !== 'delay-based';
  }

  private updateInstantUpperBound(): void {
    const averageLoss = this.window.averageReportedLossRatio();
    const offset = this.config.instantUpperBoundLossOffset;
    this.instantUpperBound = averageLoss > offset ? divideRate(this.config.instantUpperBoundBandwidthBalance, averageLoss - offset) : this.maxBitrate;
  }

  private instantUpperBoundOrMax(): number {
    return this.instantUpperBound ?? this.maxBitrate;
  }
}
