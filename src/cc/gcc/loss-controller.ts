// GCC's loss-based controller (draft-ietf-rmcat-gcc-02, 6). Over each loss
// interval (the feedback reports covering at least `minPackets` (20) packets
// and `intervalMs` (200 ms)), with p the fraction of the reported packets
// not received:
// - p > 10 %: As = As x (1 - 0.5 p);
// - p < 2 %: As = 1.05 x As;
// - otherwise As is unchanged.
// As starts each interval from min(As, the target the sender used), so that
// a loss-free path cannot raise it unboundedly above what the delay-based
// part allows (then a later loss would cut an estimate nobody sends at), as
// libwebrtc's loss-based estimate starts from the current target; the
// sender's target is min(As, A). As stays within [min, max].

export interface LossParameters {
  readonly highLoss: number;
  readonly lowLoss: number;
  readonly increase: number;
  readonly minPackets: number;
  readonly intervalMs: number;
}

export const LOSS_DEFAULTS: LossParameters = { highLoss: 0.1, lowLoss: 0.02, increase: 1.05, minPackets: 20, intervalMs: 200 };

/** The draft's rule for one loss fraction. */
export function lossBasedRate(previous: number, lossFraction: number, p: Pick<LossParameters, 'highLoss' | 'lowLoss' | 'increase'> = LOSS_DEFAULTS): number {
  if (lossFraction > p.highLoss) return previous * (1 - 0.5 * lossFraction);
  if (lossFraction < p.lowLoss) return previous * p.increase;
  return previous;
}

export class LossBasedController {
  private readonly p: LossParameters;
  private estimate: number;
  private lost = 0;
  private reported = 0;
  private intervalStartMs: number | undefined;
  private lastLossFraction: number | undefined;

  constructor(private readonly limits: { initialBitrate: number; minBitrate: number; maxBitrate: number }, parameters: Partial<LossParameters> = {}) {
    this.p = { ...LOSS_DEFAULTS, ...parameters };
    this.estimate = limits.initialBitrate;
  }

  bitrate(): number {
    return this.estimate;
  }

  /** The loss fraction of the last completed interval. */
  lossFraction(): number | undefined {
    return this.lastLossFraction;
  }

  /** One feedback report's counts at `nowMs`, with the sender's current target; returns As. */
  update(lost: number, reported: number, nowMs: number, currentTarget: number): number {
    this.intervalStartMs ??= nowMs;
    this.lost += lost;
    this.reported += reported;
    if (this.reported >= this.p.minPackets && nowMs - this.intervalStartMs >= this.p.intervalMs) {
      const fraction = this.lost / this.reported;
      this.lastLossFraction = fraction;
      const next = lossBasedRate(Math.min(this.estimate, currentTarget), fraction, this.p);
      this.estimate = Math.min(this.limits.maxBitrate, Math.max(this.limits.minBitrate, next));
      this.lost = 0;
      this.reported = 0;
      this.intervalStartMs = nowMs;
    }
    return this.estimate;
  }
}
