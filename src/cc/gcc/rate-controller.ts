// GCC's delay-based AIMD rate controller (draft-ietf-rmcat-gcc-02, 5.5).
// The detector's signal drives a state machine:
//
//   signal \ state   hold       increase   decrease
//   over-use         decrease   decrease   decrease
//   normal           increase   increase   hold
//   under-use        hold       hold       hold
//
// and the state sets the estimate A:
// - increase: multiplicatively, A x 1.08^min(dt, 1 s) (8 % a second), while
//   far from convergence; additively near it, by max(1 kbit,
//   alpha x the bits of a packet) with alpha = 0.5 x min(dt / response time, 1)
//   and response time = 100 ms + RTT (about half a packet per response time).
//   Convergence is judged by the average of the received rate R at past
//   decreases (an exponential average, weight 0.05, with a variance
//   normalised by it, bounded so that sigma is 2 % to 5 % of 1 Mbit/s, as
//   libwebrtc bounds it): while there is one, the increase is additive; a
//   received rate more than three standard deviations above it resets it
//   (the path got faster): multiplicative again. A never exceeds 1.5 x R.
// - decrease: A = beta x R (beta 0.85), at most once per RTT (clamped to
//   10..200 ms) while the over-use lasts; each decrease feeds the average,
//   after resetting it when R is more than three standard deviations below
//   it (the path got slower: the old average says nothing of the new one).
// - hold: A unchanged.
// A stays within [min, max]. Pure: signal, received rate, time and RTT in.
//
// `rule: 'libwebrtc'` follows libwebrtc's aimd_rate_control.cc where it
// differs from the draft: a decrease to beta x R - 5 kbit/s, never above A
// (and from beta x the average at decreases when beta x R would be), and only
// once the last change is an RTT (10..200 ms) old or R fell below half of A;
// an increase only while A is below 1.5 x R + 10 kbit/s, the additive one at
// one average packet (a 30 fps frame of A split into packets of at most 1200
// bytes) per 2 x (RTT + 100 ms), at least 4 kbit/s per second.
import type { Usage } from './overuse-detector.ts';

export type RateControlState = 'hold' | 'increase' | 'decrease';

export interface RateControlParameters {
  readonly beta: number;
  /** Multiplicative increase per second (1.08: 8 %). */
  readonly increasePerSecond: number;
  readonly maxToReceivedRatio: number;
  readonly averageWeight: number;
  /** Bytes of a typical packet for the additive increase. */
  readonly packetBytes: number;
  /** The draft's rule or libwebrtc's (see above). */
  readonly rule: 'draft02' | 'libwebrtc';
}

export const RATE_CONTROL_DEFAULTS: RateControlParameters = { beta: 0.85, increasePerSecond: 1.08, maxToReceivedRatio: 1.5, averageWeight: 0.05, packetBytes: 1200, rule: 'draft02' };

/** libwebrtc's additive increase, bit/s per second: an average packet of a 30 fps frame per 2 x (RTT + 100 ms), at least 4 kbit/s per second. */
export function libwebrtcAdditiveRate(estimate: number, rttMs: number, maxPacketBytes = 1200): number {
  const frameBits = estimate / 30;
  const packets = Math.max(1, Math.ceil(frameBits / (8 * maxPacketBytes)));
  return Math.max(4000, (frameBits / packets) / ((2 * (rttMs + 100)) / 1000));
}

export interface RateLimits {
  readonly initialBitrate: number;
  readonly minBitrate: number;
  readonly maxBitrate: number;
}

/** The next state for a signal (the table above). */
export function nextState(state: RateControlState, signal: Usage): RateControlState {
  if (signal === 'overuse') return 'decrease';
  if (signal === 'underuse') return 'hold';
  return state === 'decrease' ? 'hold' : 'increase';
}

export class AimdRateController {
  private readonly p: RateControlParameters;
  private estimate: number;
  private stateValue: RateControlState = 'hold';
  private lastUpdateMs: number | undefined;
  private lastDecreaseMs = -Infinity;
  /** libwebrtc's time_last_bitrate_change_: the last increase or decrease (or entering increase). */
  private lastChangeMs = -Infinity;
  /** Average of R at decreases (bit/s) and its variance normalised by the average (bit/s). */
  private averageMax: number | undefined;
  private normalisedVariance = 400;

  constructor(private readonly limits: RateLimits, parameters: Partial<RateControlParameters> = {}) {
    this.p = { ...RATE_CONTROL_DEFAULTS, ...parameters };
    this.estimate = limits.initialBitrate;
  }

  bitrate(): number {
    return this.estimate;
  }

  state(): RateControlState {
    return this.stateValue;
  }

  /** Whether an increase at received rate R would be additive: there is an average of R at past decreases and R is not above its band. */
  nearConvergence(receivedBitrate: number | undefined): boolean {
    if (this.averageMax === undefined) return false;
    return receivedBitrate === undefined || receivedBitrate <= this.averageMax + 3 * this.sigma();
  }

  private sigma(): number {
    return this.averageMax === undefined ? 0 : Math.sqrt(this.normalisedVariance * this.averageMax);
  }

  /** Sets A to a measured rate (a bandwidth probe's result), as libwebrtc's SetEstimate. */
  setEstimate(bitrate: number, nowMs: number): number {
    this.estimate = Math.min(this.limits.maxBitrate, Math.max(this.limits.minBitrate, bitrate));
    this.lastChangeMs = nowMs;
    this.lastUpdateMs = nowMs;
    return this.estimate;
  }

  /** Applies one signal; returns A. */
  update(signal: Usage, receivedBitrate: number | undefined, nowMs: number, rttMs: number): number {
    if (this.p.rule === 'libwebrtc') return this.updateLibwebrtc(signal, receivedBitrate, nowMs, rttMs);
    const dtMs = this.lastUpdateMs === undefined ? 0 : Math.max(0, nowMs - this.lastUpdateMs);
    this.lastUpdateMs = nowMs;
    const previousState = this.stateValue;
    this.stateValue = nextState(this.stateValue, signal);
    const r = receivedBitrate;
    if (this.stateValue === 'increase') {
      if (r !== undefined && this.averageMax !== undefined && r > this.averageMax + 3 * this.sigma()) this.averageMax = undefined;
      if (this.averageMax !== undefined) {
        const responseMs = 100 + rttMs;
        const alpha = 0.5 * Math.min(dtMs / responseMs, 1);
        this.estimate += Math.max(1000, alpha * this.p.packetBytes * 8);
      } else {
        this.estimate *= Math.pow(this.p.increasePerSecond, Math.min(dtMs / 1000, 1));
      }
      if (r !== undefined) this.estimate = Math.min(this.estimate, this.p.maxToReceivedRatio * r);
    } else if (this.stateValue === 'decrease') {
      const interval = Math.min(200, Math.max(10, rttMs));
      if (previousState !== 'decrease' || nowMs - this.lastDecreaseMs >= interval) {
        const base = r ?? this.estimate;
        this.estimate = this.p.beta * base;
        this.lastDecreaseMs = nowMs;
        if (r !== undefined) this.trackDecrease(r);
      }
    }
    this.estimate = Math.min(this.limits.maxBitrate, Math.max(this.limits.minBitrate, this.estimate));
    return this.estimate;
  }

  /** libwebrtc's ChangeBitrate, and DelayBasedBwe's rule of acting on an over-use only when TimeToReduceFurther. */
  private updateLibwebrtc(signal: Usage, r: number | undefined, nowMs: number, rttMs: number): number {
    if (signal === 'overuse' && r !== undefined) {
      const interval = Math.min(200, Math.max(10, rttMs));
      if (!(nowMs - this.lastChangeMs >= interval || r < 0.5 * this.estimate)) return this.estimate;
    }
    const previous = this.stateValue;
    this.stateValue = nextState(this.stateValue, signal);
    if (this.stateValue === 'increase' && previous === 'hold') this.lastChangeMs = nowMs;
    if (this.stateValue === 'increase') {
      if (r !== undefined && this.averageMax !== undefined && r > this.averageMax + 3 * this.sigma()) this.averageMax = undefined;
      const limit = r === undefined ? Infinity : this.p.maxToReceivedRatio * r + 10_000;
      if (this.estimate < limit) {
        const dt = Math.max(0, nowMs - this.lastChangeMs);
        const increased = this.averageMax !== undefined
          ? this.estimate + (libwebrtcAdditiveRate(this.estimate, rttMs, this.p.packetBytes) * dt) / 1000
          : this.estimate + Math.max(1000, this.estimate * (Math.pow(this.p.increasePerSecond, Math.min(dt / 1000, 1)) - 1));
        this.estimate = Math.min(increased, limit);
      }
      this.lastChangeMs = nowMs;
    } else if (this.stateValue === 'decrease') {
      const base = r ?? this.estimate;
      let decreased = this.p.beta * base;
      if (decreased > 5000) decreased -= 5000;
      if (decreased > this.estimate && this.averageMax !== undefined) decreased = this.p.beta * this.averageMax;
      if (decreased < this.estimate) this.estimate = decreased;
      if (r !== undefined) this.trackDecrease(r);
      // Stay on hold until the queue has drained.
      this.stateValue = 'hold';
      this.lastChangeMs = nowMs;
      this.lastDecreaseMs = nowMs;
    }
    this.estimate = Math.min(this.limits.maxBitrate, Math.max(this.limits.minBitrate, this.estimate));
    return this.estimate;
  }

  private trackDecrease(r: number): void {
    if (this.averageMax !== undefined && r < this.averageMax - 3 * this.sigma()) this.averageMax = undefined;
    if (this.averageMax === undefined) {
      this.averageMax = r;
      return;
    }
    const w = this.p.averageWeight;
    const error = r - this.averageMax;
    this.averageMax = (1 - w) * this.averageMax + w * r;
    this.normalisedVariance = (1 - w) * this.normalisedVariance + (w * error * error) / Math.max(this.averageMax, 1);
    // sigma^2 = variance x average: at 1 Mbit/s sigma stays between 20 and 50 kbit/s (2 % to 5 %).
    this.normalisedVariance = Math.min(2500, Math.max(400, this.normalisedVariance));
  }
}
