// CUBIC's window (RFC 9438), over the sender's NewReno loss recovery:
//
//   W_cubic(t) = C (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_epoch) / C)
//
// in segments and seconds, C = 0.4, beta_cubic = 0.7. t runs from the start of
// a congestion-avoidance stage (the first ACK in congestion avoidance after a
// congestion event); each ACK moves cwnd towards target = W_cubic(t + RTT),
// clamped to [cwnd, 1.5 cwnd], by (target - cwnd) / cwnd per acknowledged
// segment (RFC 9438 4.4 and 4.5 say per ACK; counting segments, as Linux does,
// keeps the curve independent of delayed ACKs). The Reno-friendly estimate
// W_est (4.3) grows by alpha_cubic = 3 (1 - beta) / (1 + beta) segments per
// window of acknowledged segments, 1 once it has reached cwnd_prior; when
// W_cubic(t) < W_est, cwnd = W_est. On a congestion event (4.6) ssthresh =
// max(W * beta, 2 MSS) and, with fast convergence (4.7), W_max = W (1 +
// beta) / 2 if W is below the previous W_max, else W, where W = min(cwnd,
// FlightSize) (4.6 allows either; the smaller is right both ways: a timeout
// during NewReno recovery finds cwnd inflated by the duplicate ACKs, and one
// during SACK recovery finds a FlightSize swollen by the segments lost since,
// which would keep ssthresh above what the path holds). After a timeout (4.8) ssthresh is
// set the same way, cwnd = 1 MSS, and the next congestion-avoidance stage
// starts with K = 0 and W_max = cwnd at its start. Slow start is
// slow-start.ts's; when HyStart or HyStart++ ends slow start without a
// loss, W_max is undefined and (4.10) cwnd_prior = cwnd, K = 0 and W_max =
// cwnd at the start of congestion avoidance. The default slow start is
// Linux's HyStart ('hystart-linux'), which Linux's CUBIC runs; 'hystart++' is
// RFC 9406's.
//
// With Linux's HyStart (the default) the model is Linux's CUBIC throughout:
// congestion avoidance and the reduction follow tcp_cubic.c's arithmetic
// (cubic-linux.ts) instead of the real-valued formulas above: the curve read
// at t + delay_min (the smallest RTT) instead of t + SRTT, whole segments
// (cnt, snd_cwnd_cnt), times in jiffies and 1/1024 s, the Reno-friendly
// estimate without the switch to alpha = 1, ssthresh and W_max of cwnd, and
// before the first loss (W_max 0) at least one segment per 20 acknowledged.
// After a timeout, ssthresh is taken as the RFC path takes it, of min(cwnd,
// FlightSize) (Linux keeps ssthresh when the timeout falls in fast recovery).
// With 'hystart++' or 'standard' the formulas are RFC 9438's.
import { initialWindowBytes, type CongestionControl, type CongestionControlOptions } from './congestion-control.ts';
import { SlowStart, type SlowStartAck, type SlowStartKind } from './slow-start.ts';
import { LinuxCubicGrowth, linuxCubicSsthresh, LINUX_START_GROWTH_ACKS } from './cubic-linux.ts';

/** Linux's CUBIC leaves slow start with its HyStart (tcp_cubic.c). */
export const DEFAULT_CUBIC_SLOW_START: SlowStartKind = 'hystart-linux';

export const CUBIC_C = 0.4;
export const CUBIC_BETA = 0.7;
export const CUBIC_ALPHA = (3 * (1 - CUBIC_BETA)) / (1 + CUBIC_BETA);
export { LINUX_START_GROWTH_ACKS };

/** W_cubic(t) of RFC 9438 (Figure 1): segments, t and K in seconds. */
export function cubicWindow(tSeconds: number, wMaxSegments: number, kSeconds: number, c = CUBIC_C): number {
  return c * (tSeconds - kSeconds) ** 3 + wMaxSegments;
}

/** K of RFC 9438 (Figure 2): seconds for W_cubic to grow from cwnd_epoch back to W_max. */
export function cubicK(wMaxSegments: number, cwndEpochSegments: number, c = CUBIC_C): number {
  return Math.cbrt(Math.max(0, wMaxSegments - cwndEpochSegments) / c);
}

export interface CubicState {
  /** W_max, segments. */
  readonly wMax: number;
  /** K, seconds (valid once the stage has started). */
  readonly k: number;
  /** When the current congestion-avoidance stage started (ms), undefined until its first ACK. */
  readonly epochStartMs: number | undefined;
  /** W_est, segments. */
  readonly wEst: number;
  /** cwnd when congestion was last detected, segments. */
  readonly cwndPrior: number;
}

export class Cubic implements CongestionControl {
  readonly name = 'cubic' as const;
  cwnd: number;
  ssthresh = Infinity;
  private readonly mss: number;
  private wMax = 0;
  private k = 0;
  private epochStartMs: number | undefined = undefined;
  private wEst = 0;
  private cwndPrior = 0;
  private afterTimeout = false;
  /** Linux's arithmetic (cubic-linux.ts), with Linux's HyStart; undefined: RFC 9438's. */
  readonly linux: LinuxCubicGrowth | undefined;
  readonly slowStart: SlowStart;

  constructor(options: CongestionControlOptions) {
    this.mss = options.mss;
    const slowStart = options.slowStart ?? DEFAULT_CUBIC_SLOW_START;
    this.linux = slowStart === 'hystart-linux' ? new LinuxCubicGrowth() : undefined;
    this.cwnd = initialWindowBytes(options);
    this.slowStart = new SlowStart({ ...options, slowStart });
  }

  state(): CubicState {
    return { wMax: this.wMax, k: this.k, epochStartMs: this.epochStartMs, wEst: this.wEst, cwndPrior: this.cwndPrior };
  }

  onAck(ackedBytes: number, nowMs: number, srttMs: number, ack?: SlowStartAck): void {
    if (ack?.rttMs !== undefined) this.linux?.onRttSample(ack.rttMs, nowMs);
    if (this.cwnd < this.ssthresh) {
      const step = this.slowStart.onAck(ackedBytes, this.cwnd, ack);
      this.cwnd += step.increase;
      if (step.exit) {
        this.ssthresh = this.cwnd;
        this.cwndPrior = this.cwnd / this.mss;
      }
      return;
    }
    if (this.linux !== undefined) {
      const acked = Math.max(1, Math.round(ackedBytes / this.mss));
      this.cwnd = this.linux.onAck(Math.floor(this.cwnd / this.mss), acked, nowMs) * this.mss;
      return;
    }
    const mss = this.mss;
    let cwnd = this.cwnd / mss;
    if (this.epochStartMs === undefined) {
      this.epochStartMs = nowMs;
      if (this.afterTimeout || cwnd >= this.wMax) {
        this.wMax = cwnd;
        this.k = 0;
      } else {
        this.k = cubicK(this.wMax, cwnd);
      }
      this.afterTimeout = false;
      this.wEst = cwnd;
    }
    const segments = ackedBytes / mss;
    const t = (nowMs - this.epochStartMs) / 1000;
    const rtt = srttMs / 1000;
    const alpha = this.wEst >= this.cwndPrior ? 1 : CUBIC_ALPHA;
    this.wEst += (alpha * segments) / cwnd;
    if (cubicWindow(t, this.wMax, this.k) < this.wEst) {
      cwnd = Math.max(cwnd, this.wEst);
    } else {
      const target = Math.min(1.5 * cwnd, Math.max(cwnd, cubicWindow(t + rtt, this.wMax, this.k)));
      cwnd += ((target - cwnd) / cwnd) * segments;
    }
    this.cwnd = cwnd * mss;
  }

  onCongestion(_nowMs: number, flightBytes: number): void {
    this.slowStart.onCongestion();
    if (this.linux !== undefined) this.ssthresh = this.linux.onCongestion(Math.floor(this.cwnd / this.mss)) * this.mss;
    else this.reduce(flightBytes);
  }

  onTimeout(_nowMs: number, flightBytes: number): void {
    this.slowStart.onTimeout();
    if (this.linux !== undefined) {
      this.ssthresh = linuxCubicSsthresh(Math.floor(Math.min(this.cwnd, flightBytes) / this.mss)) * this.mss;
      this.linux.onTimeout();
    } else this.reduce(flightBytes);
    this.cwnd = this.mss;
    this.afterTimeout = true;
  }

  private reduce(flightBytes: number): void {
    const cwnd = Math.min(this.cwnd, flightBytes) / this.mss;
    this.cwndPrior = cwnd;
    this.wMax = cwnd < this.wMax ? (cwnd * (1 + CUBIC_BETA)) / 2 : cwnd;
    this.ssthresh = Math.max(cwnd * this.mss * CUBIC_BETA, 2 * this.mss);
    this.epochStartMs = undefined;
  }
}
