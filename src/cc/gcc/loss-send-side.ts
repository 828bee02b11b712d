// GCC's loss-based part as libwebrtc's goog_cc runs it by default: how
// SendSideBandwidthEstimation (goog_cc/send_side_bandwidth_estimation.cc,
// UpdateEstimate, UpdateLossBasedEstimator, SetAcknowledgedRate) combines
// the classic rule (loss-libwebrtc.ts) with LossBasedBweV2 (loss-v2.ts),
// which is enabled by default (loss-v2-config.ts):
// - every feedback report goes to LossBasedBweV2 with the delay-based
//   estimate and whether the sender is in ALR, after the acknowledged
//   bitrate (goog_cc_network_control.cc, OnTransportPacketsFeedback);
// - during the start phase (the first 2 s after the first report, while no
//   loss was seen) a delay-based estimate above the target becomes the
//   target ("UseInStartPhase" is false by default); otherwise UpdateEstimate
//   goes on as below;
// - until the first loss fraction is formed, the estimate holds;
// - then, once LossBasedBweV2 is ready (3 observations), its result is the
//   loss-based estimate; before that the classic 2 % / 10 % rule is. One
//   difference remains: in the start phase the classic rule does not limit
//   here, where libwebrtc's would allow 1.08 x the lowest target of the last
//   second (capped by the delay-based estimate, not above the target).
// Pure: counts, packets, rates and flags in; the loss-based estimate out.
import { LibwebrtcLossController } from './loss-libwebrtc.ts';
import { CONGESTION_CONTROLLER_MIN_BITRATE } from './loss-v2-config.ts';
import { LossBasedBweV2, type LossBasedState } from './loss-v2.ts';
import type { LossPacketResult } from './loss-v2-observations.ts';

/** What the loss-based part is told per feedback report. */
export interface LossInput {
  readonly lost: number;
  readonly reported: number;
  readonly nowMs: number;
  /** The sender's target (bit/s) before this report. */
  readonly target: number;
  /** The delay-based estimate after this report (bit/s). */
  readonly delayBased: number;
  readonly rttMs: number;
  /** The report's packets known to the sender, received or lost. */
  readonly packets: readonly LossPacketResult[];
  /** The acknowledged bitrate (bit/s), if it has one. */
  readonly acknowledgedBitrate: number | undefined;
  readonly inAlr: boolean;
}

export class SendSideLossEstimator {
  private readonly classic: LibwebrtcLossController;
  private readonly v2: LossBasedBweV2;
  private estimate = Infinity;
  private usingV2 = false;

  constructor(limits: { readonly minBitrate: number; readonly maxBitrate: number }) {
    this.classic = new LibwebrtcLossController(limits);
    // SendSideBandwidthEstimation::SetMinMaxBitrate: the minimum at least kCongestionControllerMinBitrate.
    const minBitrate = Math.max(limits.minBitrate, CONGESTION_CONTROLLER_MIN_BITRATE);
    this.v2 = new LossBasedBweV2({ minBitrate, maxBitrate: Math.max(minBitrate, limits.maxBitrate) });
  }

  /** The loss-based estimate, bit/s (Infinity while it does not limit). */
  bitrate(): number {
    return this.estimate;
  }

  /** The classic rule's last loss fraction (0 to 1), if any. */
  lossFraction(): number | undefined {
    return this.classic.lossFraction();
  }

  /** LossBasedBweV2's state while its result is the estimate; undefined before. */
  state(): LossBasedState | undefined {
    return this.usingV2 ? this.v2.lossBasedResult().state : undefined;
  }

  update(input: LossInput): number {
    const classic = this.classic.update(input.lost, input.reported, input.nowMs, input.target, input.delayBased, input.rttMs);
    if (input.acknowledgedBitrate !== undefined) this.v2.setAcknowledgedBitrate(input.acknowledgedBitrate);
    this.v2.update(input.packets, input.delayBased, input.inAlr);
    const phase = this.classic.lastPhase();
    const fellThrough = phase === 'start' && input.delayBased <= input.target && this.classic.lossFraction() !== undefined;
    this.usingV2 = this.v2.isReady() && (phase === 'rule' || fellThrough);
    this.estimate = this.usingV2 ? Math.min(this.v2.lossBasedResult().bandwidthEstimate, input.delayBased) : classic;
    return this.estimate;
  }
}
