// LossBasedBweV2's channel model and its maximum-likelihood fit
// (goog_cc/loss_based_bwe_v2.cc: GetLossProbability, GetDerivatives,
// GetObjective, GetFeasibleInherentLoss, GetInherentLossUpperBound,
// AdjustBiasFactor, GetHighBandwidthBias, NewtonsMethodUpdate).
//
// A channel is an inherent loss p0 and a loss-limited bandwidth B: sending
// at rate r loses p0 + (1 - p0)(r - B)/r when r > B, else p0 (clamped to
// [1e-6, 1 - 1e-6]). An observation's log-likelihood is lost x log p +
// received x log(1 - p), weighted by its age; the objective adds a bias
// towards higher B that turns towards lower B when the average loss exceeds
// 15 %. For a candidate B, one damped Newton step (step 0.75) on p0 moves it
// towards its maximum-likelihood value, within [1e-3, 0.05 + 75 kbit/s / B].
// Pure functions of the configuration, the weighted observations and the
// average loss. Rates in bit/s.
import type { LossBasedBweV2Config } from './loss-v2-config.ts';
import type { Observation } from './loss-v2-observations.ts';

export interface ChannelParameters {
  readonly inherentLoss: number;
  /** bit/s; -Infinity before the estimator has one (libwebrtc's MinusInfinity). */
  readonly lossLimitedBandwidth: number;
}

export type WeightedObservations = ReadonlyArray<{ readonly observation: Observation; readonly weight: number }>;

export function lossProbability(inherentLoss: number, lossLimitedBandwidth: number, sendingRate: number): number {
  const p0 = Math.min(Math.max(inherentLoss, 0), 1);
  let p = p0;
  if (Number.isFinite(sendingRate) && Number.isFinite(lossLimitedBandwidth) && sendingRate > lossLimitedBandwidth) {
    p += ((1 - p0) * (sendingRate - lossLimitedBandwidth)) / sendingRate;
  }
  return Math.min(Math.max(p, 1.0e-6), 1.0 - 1.0e-6);
}

export function inherentLossUpperBound(config: LossBasedBweV2Config, bandwidth: number): number {
  if (bandwidth === 0) return 1.0;
  return Math.min(config.inherentLossUpperBoundOffset + config.inherentLossUpperBoundBandwidthBalance / bandwidth, 1.0);
}

export function feasibleInherentLoss(config: LossBasedBweV2Config, c: ChannelParameters): number {
  return Math.min(Math.max(c.inherentLoss, config.inherentLossLowerBound), inherentLossUpperBound(config, c.lossLimitedBandwidth));
}

/** First and second derivative of the weighted log-likelihood in the inherent loss. */
export function derivatives(observations: WeightedObservations, c: ChannelParameters): { first: number; second: number } {
  let first = 0;
  let second = 0;
  for (const { observation: o, weight } of observations) {
    const p = lossProbability(c.inherentLoss, c.lossLimitedBandwidth, o.sendingRate);
    first += weight * (o.numLostPackets / p - o.numReceivedPackets / (1.0 - p));
    second -= weight * (o.numLostPackets / p ** 2 + o.numReceivedPackets / (1.0 - p) ** 2);
  }
  // "mathematically guaranteed to be negative"; libwebrtc guards it the same way.
  if (second >= 0) second = -1.0e-6;
  return { first, second };
}

/** The candidate after libwebrtc's Newton steps on its inherent loss (unchanged before any observation). */
export function newtonsMethodUpdate(config: LossBasedBweV2Config, observations: WeightedObservations, numObservations: number, c: ChannelParameters): ChannelParameters {
  if (numObservations <= 0) return c;
  let current = c;
  for (let i = 0; i < config.newtonIterations; i++) {
    const d = derivatives(observations, current);
    const stepped = { ...current, inherentLoss: current.inherentLoss - (config.newtonStepSize * d.first) / d.second };
    current = { ...stepped, inherentLoss: feasibleInherentLoss(config, stepped) };
  }
  return current;
}

function adjustBiasFactor(config: LossBasedBweV2Config, lossRate: number, biasFactor: number): number {
  const threshold = config.lossThresholdOfHighBandwidthPreference;
  return (biasFactor * (threshold - lossRate)) / (config.bandwidthPreferenceSmoothingFactor + Math.abs(threshold - lossRate));
}

/** libwebrtc's DataRate::kbps(): whole kbit/s, rounded to nearest (rtc_base/units/unit_base.h, ToFraction). */
function kbps(bps: number): number {
  return Math.sign(bps) * Math.floor((Math.abs(bps) + 500) / 1000);
}

export function highBandwidthBias(config: LossBasedBweV2Config, averageLossRatio: number, bandwidth: number): number {
  if (!Number.isFinite(bandwidth)) return 0;
  return (
    adjustBiasFactor(config, averageLossRatio, config.higherBandwidthBiasFactor) * kbps(bandwidth) +
    adjustBiasFactor(config, averageLossRatio, config.higherLogBandwidthBiasFactor) * Math.log(1.0 + kbps(bandwidth))
  );
}

/** The weighted log-likelihood of the observations under `c`, plus the bandwidth bias per packet. */
export function objective(config: LossBasedBweV2Config, observations: WeightedObservations, averageLossRatio: number, c: ChannelParameters): number {
  const bias = highBandwidthBias(config, averageLossRatio, c.lossLimitedBandwidth);
  let sum = 0;
  for (const { observation: o, weight } of observations) {
    const p = lossProbability(c.inherentLoss, c.lossLimitedBandwidth, o.sendingRate);
    sum += weight * (o.numLostPackets * Math.log(p) + o.numReceivedPackets * Math.log(1.0 - p));
    sum += weight * bias * o.numPackets;
  }
  return sum;
}
