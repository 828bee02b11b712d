// LossBasedBweV2's observations (goog_cc/loss_based_bwe_v2.cc,
// PushBackObservation, GetAverageReportedPacketLossRatio,
// CalculateTemporalWeights): feedback is summed into a partial observation
// until the newest packet's send time lies at least
// `observationDurationLowerBoundUs` (250 ms) after the last observation's
// newest send time; it then becomes an observation (packets, lost packets,
// sending rate = bytes / that span, as libwebrtc's DataSize / TimeDelta in
// whole bit/s), kept in a ring of `observationWindowSize` (20), numbered
// from 0 (with SendingRateSmoothingFactor s, the rate is s x the previous
// observation's + (1 - s) x its own; s is 0 by default). Observation k back from the newest weighs factor^k: 0.9^k in the
// likelihood (temporal weights) and 0.9^k in the average reported loss
// ratio (instant upper bound weights). Times in µs, sizes in bytes. Pure.
import { scaleRate, type LossBasedBweV2Config } from './loss-v2-config.ts';

/** One packet of a feedback report, as the estimator sees it. */
export interface LossPacketResult {
  readonly sendTimeUs: number;
  readonly sizeBytes: number;
  readonly received: boolean;
}

export interface Observation {
  readonly id: number;
  readonly numPackets: number;
  readonly numLostPackets: number;
  readonly numReceivedPackets: number;
  /** bit/s */
  readonly sendingRate: number;
  readonly sizeBytes: number;
}

export class ObservationWindow {
  private readonly ring: Array<Observation | undefined>;
  private readonly temporalWeights: number[];
  private readonly instantWeights: number[];
  private partial = { numPackets: 0, numLostPackets: 0, sizeBytes: 0 };
  private count = 0;
  /** Send time of the newest packet of the newest observation (PlusInfinity before any report, as libwebrtc). */
  private lastSendTimeUs = Infinity;

  constructor(private readonly config: LossBasedBweV2Config) {
    const n = config.observationWindowSize;
    this.ring = new Array<Observation | undefined>(n).fill(undefined);
    this.temporalWeights = Array.from({ length: n }, (_, i) => config.temporalWeightFactor ** i);
    this.instantWeights = Array.from({ length: n }, (_, i) => config.instantUpperBoundTemporalWeightFactor ** i);
  }

  /** Observations made so far (libwebrtc's num_observations_). */
  numObservations(): number {
    return this.count;
  }

  /** Send time of the newest observation's newest packet, µs (libwebrtc's last_send_time_most_recent_observation_). */
  lastObservationSendTimeUs(): number {
    return this.lastSendTimeUs;
  }

  /** The observations held, each with its likelihood weight. */
  weighted(): Array<{ observation: Observation; weight: number }> {
    return this.held().map((observation) => ({ observation, weight: this.temporalWeights[this.count - 1 - observation.id]! }));
  }

  /** Adds one report's packets; returns true when they completed a new observation. */
  push(packets: readonly LossPacketResult[]): boolean {
    if (packets.length === 0) return false;
    let first = Infinity;
    let last = -Infinity;
    for (const p of packets) {
      this.partial.numPackets++;
      if (!p.received) this.partial.numLostPackets++;
      this.partial.sizeBytes += p.sizeBytes;
      first = Math.min(first, p.sendTimeUs);
      last = Math.max(last, p.sendTimeUs);
    }
    if (!Number.isFinite(this.lastSendTimeUs)) this.lastSendTimeUs = first;
    const durationUs = last - this.lastSendTimeUs;
    if (durationUs <= 0 || durationUs < this.config.observationDurationLowerBoundUs) return false;
    this.lastSendTimeUs = last;
    const { numPackets, numLostPackets, sizeBytes } = this.partial;
    // DataSize / TimeDelta: microbits over µs, truncated (api/units/data_rate.h).
    const sendingRate = this.smoothed(Math.trunc((sizeBytes * 8_000_000) / durationUs));
    const id = this.count++;
    this.ring[id % this.ring.length] = { id, numPackets, numLostPackets, numReceivedPackets: numPackets - numLostPackets, sendingRate, sizeBytes };
    this.partial = { numPackets: 0, numLostPackets: 0, sizeBytes: 0 };
    return true;
  }

  /** libwebrtc's GetSendingRate. */
  private smoothed(instantaneous: number): number {
    if (this.count <= 0) return instantaneous;
    const previous = this.ring[(this.count - 1) % this.ring.length]!.sendingRate;
    const s = this.config.sendingRateSmoothingFactor;
    return scaleRate(previous, s) + scaleRate(instantaneous, 1.0 - s);
  }

  /** The packet loss ratio over the held observations, weighted 0.9^k (0 before any). */
  averageReportedLossRatio(): number {
    if (this.count <= 0) return 0;
    let packets = 0;
    let lost = 0;
    for (const o of this.held()) {
      const w = this.instantWeights[this.count - 1 - o.id]!;
      packets += w * o.numPackets;
      lost += w * o.numLostPackets;
    }
    return lost / packets;
  }

  private held(): Observation[] {
    return this.ring.filter((o): o is Observation => o !== undefined);
  }
}
