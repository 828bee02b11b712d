// GCC's loss-based controller (draft-ietf-rmcat-gcc-02, 6). On every
// feedback report, with p the fraction of packets not received among those
// the reports of the last `windowMs` (1 s, the draft's RTCP receiver-report
// scale: over one 100 ms report, 1 % loss would read as 0 % or 10 %) cover,
// once they cover at least `minPackets` (20):
// - p > 10 %: As = As x (1 - 0.5 p), at most once per window (one window's
//   losses count once; in between As holds);
// - p < 2 %: As = 1.05 x As;
// - otherwise As is unchanged.
// Each rule starts from min(As, the target the sender used), as libwebrtc's
// loss-based estimate starts from the current target: a loss-free path then
// keeps As 5 % above the target, never limiting the delay-based part (which
// grows at most 8 % a second), yet never far above it, so that a loss cuts
// what is really sent. The sender's target is min(As, A). As stays within
// [min, max].

export interface LossParameters {
  readonly highLoss: number;
  readonly lowLoss: number;
  readonly increase: number;
  readonly minPackets: number;
  readonly windowMs: number;
}

export const LOSS_DEFAULTS: LossParameters = { highLoss: 0.1, lowLoss: 0.02, increase: 1.05, minPackets: 20, windowMs: 1000 };

/** The draft's rule for one loss fraction. */
export function lossBasedRate(previous: number, lossFraction: number, p: Pick<LossParameters, 'highLoss' | 'lowLoss' | 'increase'> = LOSS_DEFAULTS): number {
  if (lossFraction > p.highLoss) return previous * (1 - 0.5 * lossFraction);
  if (lossFraction < p.lowLoss) return previous * p.increase;
  return previous;
}

export class LossBasedController {
  private readonly p: LossParameters;
  private estimate: number;
  private readonly reports: Array<{ t: number; lost: number; reported: number }> = [];
  private lost = 0;
  private reported = 0;
  private lastDecreaseMs = -Infinity;
  private lastLossFraction: number | undefined;

  constructor(private readonly limits: { initialBitrate: number; minBitrate: number; maxBitrate: number }, parameters: Partial<LossParameters> = {}) {
    this.p = { ...LOSS_DEFAULTS, ...parameters };
    this.estimate = limits.initialBitrate;
  }

  bitrate(): number {
    return this.estimate;
  }

  /** The loss fraction over the window at the last report that covered enough packets. */
  lossFraction(): number | undefined {
    return this.lastLossFraction;
  }

  /** One feedback report's counts at `nowMs`, with the sender's current target; returns As. */
  update(lost: number, reported: number, nowMs: number, currentTarget: number): number {
    this.reports.push({ t: nowMs, lost, reported });
    this.lost += lost;
    this.reported += reported;
    while (this.reports.length > 0 && this.reports[0]!.t <= nowMs - this.p.windowMs) {
      const old = this.reports.shift()!;
      this.lost -= old.lost;
      this.reported -= old.reported;
    }
    if (this.reported < this.p.minPackets) return this.estimate;
    const fraction = this.lost / this.reported;
    this.lastLossFraction = fraction;
    const base = Math.min(this.estimate, currentTarget);
    let next = this.estimate;
    if (fraction > this.p.highLoss) {
      if (nowMs - this.lastDecreaseMs >= this.p.windowMs) {
        next = lossBasedRate(base, fraction, this.p);
        this.lastDecreaseMs = nowMs;
      }
    } else {
      next = lossBasedRate(base, fraction, this.p);
    }
    this.estimate = Math.min(this.limits.maxBitrate, Math.max(this.limits.minBitrate, next));
    return this.estimate;
  }
}
