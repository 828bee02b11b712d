// LossBasedBweV2's configuration as libwebrtc runs it by default: the
// defaults of `LossBasedBweV2::CreateConfig` (goog_cc/loss_based_bwe_v2.cc),
// which apply whenever the field trial `WebRTC-Bwe-LossBasedBweV2` does not
// set them. `Enabled` defaults to true since libwebrtc commit e04726281c
// (2022-12-08, "This will enable loss based bwe v2 by default"); the values
// below are those of libwebrtc main at 0f862520dc (2024-06-18), read in the
// jbg/libwebrtc mirror, and unchanged in a later copy (ajune-wang/webrtc
// 03d2f569, which only adds MedianSendingRateFactor, used with
// UseByteLossRate alone).
//
// Only the settings the default configuration exercises are parameters here.
// Those whose default switches a branch off are not modelled, each named with
// its default: BwRampupAccelMaxFactor 0, UpperBoundCandidateInAlr false,
// UseInStartPhase false,
// LowerBoundByAckedRateFactor 0, HoldDurationFactor 0 (so no HOLD and
// BwRampupUpperBoundInHoldFactor never applies), UseByteLossRate false,
// PaddingDuration 0 (so kIncreaseUsingPadding never occurs),
// BoundBestCandidate false, PaceAtLossBasedEstimate false.

export interface LossBasedBweV2Config {
  /** BwRampupUpperBoundFactor: a loss-limited increase is capped at this x the acknowledged rate. */
  readonly rampupUpperBoundFactor: number;
  /** CandidateFactors: the current estimate times each is a candidate. */
  readonly candidateFactors: readonly number[];
  /** HigherBwBiasFactor and HigherLogBwBiasFactor: the objective's bias towards higher bandwidth (per kbit/s, per log kbit/s). */
  readonly higherBandwidthBiasFactor: number;
  readonly higherLogBandwidthBiasFactor: number;
  /** InherentLossLowerBound. */
  readonly inherentLossLowerBound: number;
  /** LossThresholdOfHighBandwidthPreference: above this average loss the bias turns towards lower bandwidth. */
  readonly lossThresholdOfHighBandwidthPreference: number;
  /** BandwidthPreferenceSmoothingFactor. */
  readonly bandwidthPreferenceSmoothingFactor: number;
  /** InherentLossUpperBoundBwBalance (bit/s) and InherentLossUpperBoundOffset: inherent loss <= offset + balance / bandwidth. */
  readonly inherentLossUpperBoundBandwidthBalance: number;
  readonly inherentLossUpperBoundOffset: number;
  /** InitialInherentLossEstimate. */
  readonly initialInherentLossEstimate: number;
  /** NewtonIterations and NewtonStepSize. */
  readonly newtonIterations: number;
  readonly newtonStepSize: number;
  /** AckedRateCandidate, DelayBasedCandidate. */
  readonly appendAcknowledgedRateCandidate: boolean;
  readonly appendDelayBasedEstimateCandidate: boolean;
  /** ObservationDurationLowerBound (µs of send time an observation spans at least). */
  readonly observationDurationLowerBoundUs: number;
  /** ObservationWindowSize: observations kept. */
  readonly observationWindowSize: number;
  /** SendingRateSmoothingFactor: an observation's sending rate is this x the previous one's + (1 - this) x its own. */
  readonly sendingRateSmoothingFactor: number;
  /** InstantUpperBoundTemporalWeightFactor, InstantUpperBoundBwBalance (bit/s), InstantUpperBoundLossOffset. */
  readonly instantUpperBoundTemporalWeightFactor: number;
  readonly instantUpperBoundBandwidthBalance: number;
  readonly instantUpperBoundLossOffset: number;
  /** TemporalWeightFactor: an observation k back weighs factor^k in the likelihood. */
  readonly temporalWeightFactor: number;
  /** BwBackoffLowerBoundFactor: the acknowledged-rate candidate is this x the acknowledged rate. */
  readonly bandwidthBackoffLowerBoundFactor: number;
  /** MaxIncreaseFactor and DelayedIncreaseWindow (µs): while loss-limited, the estimate may rise at most this x per window. */
  readonly maxIncreaseFactor: number;
  readonly delayedIncreaseWindowUs: number;
  /** NotIncreaseIfInherentLossLessThanAverageLoss. */
  readonly notIncreaseIfInherentLossLessThanAverageLoss: boolean;
  /** NotUseAckedRateInAlr. */
  readonly notUseAckedRateInAlr: boolean;
  /** MinNumObservations: observations before the estimate is used. */
  readonly minNumObservations: number;
}

export const LOSS_BWE_V2_DEFAULTS: LossBasedBweV2Config = {
  rampupUpperBoundFactor: 1_000_000,
  candidateFactors: [1.02, 1.0, 0.95],
  higherBandwidthBiasFactor: 0.0002,
  higherLogBandwidthBiasFactor: 0.02,
  inherentLossLowerBound: 1.0e-3,
  lossThresholdOfHighBandwidthPreference: 0.15,
  bandwidthPreferenceSmoothingFactor: 0.002,
  inherentLossUpperBoundBandwidthBalance: 75_000,
  inherentLossUpperBoundOffset: 0.05,
  initialInherentLossEstimate: 0.01,
  newtonIterations: 1,
  newtonStepSize: 0.75,
  appendAcknowledgedRateCandidate: true,
  appendDelayBasedEstimateCandidate: true,
  observationDurationLowerBoundUs: 250_000,
  observationWindowSize: 20,
  sendingRateSmoothingFactor: 0,
  instantUpperBoundTemporalWeightFactor: 0.9,
  instantUpperBoundBandwidthBalance: 75_000,
  instantUpperBoundLossOffset: 0.05,
  temporalWeightFactor: 0.9,
  bandwidthBackoffLowerBoundFactor: 1.0,
  maxIncreaseFactor: 1.3,
  delayedIncreaseWindowUs: 300_000,
  notIncreaseIfInherentLossLessThanAverageLoss: true,
  notUseAckedRateInAlr: true,
  minNumObservations: 3,
};

/** libwebrtc's kCongestionControllerMinBitrate (bwe_defines.h), bit/s. */
export const CONGESTION_CONTROLLER_MIN_BITRATE = 5_000;

/**
 * libwebrtc's DataRate x double: std::llround of bit/s x scalar
 * (rtc_base/units/unit_base.h, RelativeUnit::operator*); rates are whole bit/s.
 */
export function scaleRate(bps: number, scalar: number): number {
  return llround(bps * scalar);
}

/** libwebrtc's DataRate / double: std::llround of bit/s / scalar (RelativeUnit::operator/). */
export function divideRate(bps: number, scalar: number): number {
  return llround(bps / scalar);
}

function llround(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}
