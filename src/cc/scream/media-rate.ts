// SCReAM's media rate control (RFC 8298 Section 4.1.3) for one stream, as
// EricssonResearch/scream's ScreamTx::Stream computes it (code/ScreamTx.cpp,
// commit d881890 of 2017-12-19, the version of RFC 8298's publication): the
// target bitrate follows the transmitted and acknowledged rates, held back by
// the queue-delay trend and the RTP queue's size, ramps up at most
// RAMP_UP_SPEED in fast increase, drops by 0.9 on a loss, and is re-anchored
// near the last known highest rate (targetBitrateI). Times are µs.
import type { SendQueueView } from './send-queue-view.ts';

export const MEDIA_RATE_DEFAULTS = {
  /** bit/s per second (kRampUpSpeed). */
  rampUpSpeed: 200_000,
  /** s: the RTP queue is discarded above this delay (kMaxRtpQueueDelay). */
  maxRtpQueueDelay: 0.1,
  txQueueSizeFactor: 0.2,
  queueDelayGuard: 0.1,
  lossEventRateScale: 0.9,
} as const;

export type MediaRateParameters = { readonly [K in keyof typeof MEDIA_RATE_DEFAULTS]: number };

/** What the stream's rate control reads from the congestion control. */
export interface CongestionView {
  readonly inFastStart: boolean;
  queueDelayTrend(): number;
  isCompetingFlows(): boolean;
}

const RATE_ADJUST_INTERVAL_US = 200_000;
const RATE_HISTORY = 4;
const TARGET_HISTORY = 3;
const MIN_RTP_QUEUE_DISCARD_INTERVAL_US = 1_000_000;

export class StreamRate {
  targetBitrate: number;
  targetRateScale = 1;
  rateTransmitted = 0;
  rateAcked = 0;
  rateRtp = 0;
  bytesTransmitted = 0;
  bytesAcked = 0;
  bytesLost = 0;
  bytesRtp = 0;
  lossEventFlag = false;
  private targetBitrateI = 1;
  private readonly targetHistory = new Array<number>(TARGET_HISTORY).fill(0);
  private targetHistoryPtr = 0;
  private readonly history = { transmitted: [0, 0, 0, 0], acked: [0, 0, 0, 0], rtp: [0, 0, 0, 0] };
  private historyPtr = 0;
  private lastRateUpdateUs = 0;
  private lastBitrateAdjustUs = 0;
  private lastTargetBitrateIUpdateUs = 0;
  private lastRtpQueueDiscardUs = 0;
  private initUs = 0;
  private txSizeBitsAvg = 0;
  private wasFastStart = false;

  constructor(
    readonly minBitrate: number,
    startBitrate: number,
    readonly maxBitrate: number,
    private readonly p: MediaRateParameters,
  ) {
    this.targetBitrate = Math.min(maxBitrate, Math.max(minBitrate, startBitrate));
  }

  /** The rate asked of the media source (the reference's getTargetBitrate without its repair request). */
  mediaBitrate(): number {
    return this.targetRateScale * this.targetBitrate;
  }

  maxRate(): number {
    return Math.max(this.rateTransmitted, this.rateAcked);
  }

  /** Rates over the last four update intervals (Stream::updateRate). */
  updateRate(nowUs: number): void {
    if (this.lastRateUpdateUs !== 0) {
      const dt = (nowUs - this.lastRateUpdateUs) * 1e-6;
      const h = this.history;
      h.transmitted[this.historyPtr] = (this.bytesTransmitted * 8) / dt;
      h.acked[this.historyPtr] = (this.bytesAcked * 8) / dt;
      h.rtp[this.historyPtr] = (this.bytesRtp * 8) / dt;
      this.historyPtr = (this.historyPtr + 1) % RATE_HISTORY;
      const mean = (a: number[]) => a.reduce((s, x) => s + x, 0) / RATE_HISTORY;
      this.rateTransmitted = mean(h.transmitted);
      this.rateAcked = mean(h.acked);
      this.rateRtp = mean(h.rtp);
      if (this.rateRtp > 0) {
        const alpha = 0.005;
        this.targetRateScale = this.targetRateScale * (1 - alpha) + (alpha * this.targetBitrate) / this.rateRtp;
        this.targetRateScale = Math.min(1.25, Math.max(0.8, this.targetRateScale));
      }
    }
    this.bytesTransmitted = this.bytesAcked = this.bytesRtp = this.bytesLost = 0;
    this.lastRateUpdateUs = nowUs;
  }

  /** Stream::updateTargetBitrate: called as media frames are produced. */
  updateTargetBitrate(nowUs: number, queue: SendQueueView, cc: CongestionView): void {
    const br = this.maxRate();
    if (this.initUs === 0) {
      this.initUs = nowUs;
      this.lastRtpQueueDiscardUs = nowUs;
    }
    if (this.lastBitrateAdjustUs === 0) this.lastBitrateAdjustUs = nowUs;
    if (this.lossEventFlag) {
      if (nowUs - this.lastTargetBitrateIUpdateUs > 2_000_000) {
        this.updateTargetBitrateI(br);
        this.lastTargetBitrateIUpdateUs = nowUs;
      }
      this.targetBitrate = Math.max(this.minBitrate, this.targetBitrate * this.p.lossEventRateScale);
      this.lossEventFlag = false;
      this.lastBitrateAdjustUs = nowUs;
    } else {
      if (nowUs - this.lastBitrateAdjustUs < RATE_ADJUST_INTERVAL_US) return;
      this.adjust(nowUs, br, queue, cc);
      this.lastBitrateAdjustUs = nowUs;
    }
    this.targetBitrate = Math.min(this.maxBitrate, Math.max(this.minBitrate, this.targetBitrate));
  }

  private adjust(nowUs: number, br: number, queue: SendQueueView, cc: CongestionView): void {
    let sclI = ((this.targetBitrate - this.targetBitrateI) / this.targetBitrateI) * 4;
    sclI = Math.max(0.2, Math.min(1, sclI * sclI));
    const txSizeBits = Math.max(0, queue.bytes() - queue.lastFrameBytes()) * 8;
    this.txSizeBitsAvg = this.txSizeBitsAvg * 0.5 + txSizeBits * 0.5;
    let rampUpSpeed = Math.min(this.p.rampUpSpeed, this.targetBitrate * 0.5);
    if (cc.isCompetingFlows()) rampUpSpeed *= 2;
    const rampUpLimit = rampUpSpeed * (RATE_ADJUST_INTERVAL_US * 1e-6);
    const rtpQueueDelay = queue.delaySeconds(nowUs);
    if (rtpQueueDelay > this.p.maxRtpQueueDelay && nowUs - this.lastRtpQueueDiscardUs > MIN_RTP_QUEUE_DISCARD_INTERVAL_US) {
      queue.clear();
      this.lastRtpQueueDiscardUs = nowUs;
      this.targetRateScale = 1;
      this.txSizeBitsAvg = 0;
    } else if (cc.inFastStart && rtpQueueDelay < 0.1) {
      // The reference also scales by sqrt(priority): 1 for our one stream.
      let increment = rampUpLimit * sclI;
      if (this.targetBitrate > br * 1.5) increment = 0;
      this.targetBitrate += increment;
      this.wasFastStart = true;
    } else {
      if (this.wasFastStart) {
        this.wasFastStart = false;
        if (nowUs - this.lastTargetBitrateIUpdateUs > 2_000_000) {
          this.updateTargetBitrateI(br);
          this.lastTargetBitrateIUpdateUs = nowUs;
        }
      }
      const incrementScale = 1 + 0.05 * Math.min(1, 50_000 / this.targetBitrate);
      let increment = incrementScale * br;
      let scl = this.p.queueDelayGuard * cc.queueDelayTrend();
      if (cc.isCompetingFlows()) scl *= 0.05;
      increment = increment * (1 - scl) - this.p.txQueueSizeFactor * this.txSizeBitsAvg;
      increment -= this.targetBitrate;
      if (txSizeBits > 12_000 && increment > 0) increment = 0;
      if (increment > 0) {
        this.wasFastStart = true;
        if (!cc.isCompetingFlows()) increment = Math.min(increment * sclI, rampUpLimit);
        if (this.targetBitrate > br * 1.5) increment = 0;
      } else {
        // No decrease when it is the source that sends less, or much more (a key frame), than the target.
        if (this.rateRtp < this.targetBitrate * 0.8) increment = 0;
        if (this.rateRtp > this.targetBitrate * 2) increment = 0;
      }
      this.targetBitrate += increment;
    }
  }

  /** The last known highest rate: the most of the last three anchors. */
  private updateTargetBitrateI(br: number): void {
    const anchor = Math.min(br, this.targetBitrate);
    this.targetHistory[this.targetHistoryPtr] = anchor;
    this.targetHistoryPtr = (this.targetHistoryPtr + 1) % TARGET_HISTORY;
    this.targetBitrateI = Math.max(anchor, ...this.targetHistory);
  }
}
