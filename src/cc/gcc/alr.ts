// The application-limited region (ALR) as libwebrtc's AlrDetector
// (goog_cc/alr_detector.cc, pacing/interval_budget.cc) finds it: a budget
// grows at 65 % of the estimate as time passes between sent packets and
// shrinks by each packet's bytes, kept within +-500 ms of that rate; the
// sender is in ALR from when the budget is above 80 % full until it falls
// below 50 %. It matters to the acknowledged bitrate estimator (a sample in
// ALR says little of the capacity) and, when ALR ends, lets the estimate
// change fast. A media flow that always has data never enters it while it
// sends; it does on resuming after a pause (RFC 8867 5.8), as libwebrtc's
// does. Pure: packets sent and estimates in.

export const ALR_DEFAULTS = { usageRatio: 0.65, startRatio: 0.8, stopRatio: 0.5, windowMs: 500 } as const;

export class AlrDetector {
  private budgetBytes = 0;
  private maxBytes = 0;
  private rateBps = 0;
  private lastSendMs: number | undefined;
  private startedMs: number | undefined;
  private endedMs: number | undefined;

  /** The estimate the budget follows (65 % of it), bit/s. */
  setEstimate(bitrate: number): void {
    this.rateBps = ALR_DEFAULTS.usageRatio * bitrate;
    this.maxBytes = (this.rateBps / 8) * (ALR_DEFAULTS.windowMs / 1000);
    this.budgetBytes = Math.min(this.budgetBytes, this.maxBytes);
  }

  /** A packet of `bytes` left at `nowMs`. */
  onPacketSent(bytes: number, nowMs: number): void {
    if (this.lastSendMs === undefined) {
      this.lastSendMs = nowMs;
      return;
    }
    const dt = nowMs - this.lastSendMs;
    this.lastSendMs = nowMs;
    this.budgetBytes = Math.max(this.budgetBytes - bytes, -this.maxBytes);
    this.budgetBytes = Math.min(this.budgetBytes + (this.rateBps / 8) * (dt / 1000), this.maxBytes);
    const ratio = this.maxBytes > 0 ? this.budgetBytes / this.maxBytes : 0;
    if (ratio > ALR_DEFAULTS.startRatio && this.startedMs === undefined) this.startedMs = nowMs;
    else if (ratio < ALR_DEFAULTS.stopRatio && this.startedMs !== undefined) {
      this.startedMs = undefined;
      this.endedMs = nowMs;
    }
  }

  inAlr(): boolean {
    return this.startedMs !== undefined;
  }

  /** When ALR last ended (undefined: never, or taken by the caller). */
  takeEndedMs(): number | undefined {
    const t = this.endedMs;
    this.endedMs = undefined;
    return t;
  }
}
