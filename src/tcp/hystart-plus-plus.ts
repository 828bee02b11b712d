// HyStart++ (RFC 9406): leaves the initial slow start when the round trip
// time grows, before the queue overflows.
//
// Rounds (4.2): a round ends when an ACK reaches windowEnd, the SND.NXT of
// when it started; then lastRoundMinRTT = currentRoundMinRTT,
// currentRoundMinRTT = infinity, rttSampleCount = 0 and windowEnd = SND.NXT.
// Every ACK with an RTT sample counts it and keeps the round's minimum.
//
// - Slow start: once the round has N_RTT_SAMPLE samples, with RttThresh =
//   clamp(lastRoundMinRTT / 8, 4 ms, 16 ms), a currentRoundMinRTT of at least
//   lastRoundMinRTT + RttThresh enters Conservative Slow Start (CSS) with
//   cssBaselineMinRtt = currentRoundMinRTT.
// - CSS: cwnd grows by a quarter of slow start's growth (CSS_GROWTH_DIVISOR);
//   a round whose minimum (after N_RTT_SAMPLE samples) falls below the
//   baseline was a false alarm: back to slow start; after CSS_ROUNDS rounds
//   in CSS (the one it started in counts), congestion avoidance with
//   ssthresh = cwnd.
// - A loss or a timeout ends HyStart++ for good: it applies to the initial
//   slow start only (section 4.3: "SHOULD use HyStart++ only for the initial
//   slow start"); later slow starts are the standard one.
//
// Pure: the congestion control hands it every ACK of its slow start.
//
// Linux does not run HyStart++: its CUBIC (tcp_cubic.c) runs the original
// HyStart, which on the same delay signal (a round's minimum of its first 8
// samples above the connection's minimum RTT + clamp(min/8, 4, 16 ms)), or on
// an ACK train as long as half the minimum RTT, leaves slow start at once
// (ssthresh = cwnd, no CSS), and only once cwnd >= 16; its Reno has no
// HyStart at all.

export const HYSTART_MIN_RTT_THRESH_MS = 4;
export const HYSTART_MAX_RTT_THRESH_MS = 16;
export const HYSTART_MIN_RTT_DIVISOR = 8;
export const HYSTART_N_RTT_SAMPLE = 8;
export const HYSTART_CSS_GROWTH_DIVISOR = 4;
export const HYSTART_CSS_ROUNDS = 5;

export type HyStartPhase = 'slow-start' | 'css' | 'done';

/** What HyStart++ needs of one ACK. */
export interface HyStartAck {
  /** The cumulative acknowledgement (SND.UNA after this ACK). */
  readonly sndUna: number;
  /** SND.NXT when the ACK arrived (before what it lets out). */
  readonly sndNxt: number;
  /** The RTT this ACK measured, undefined when it gives none (Karn's rule). */
  readonly rttMs: number | undefined;
}

/** RttThresh of RFC 9406 4.2: clamp(lastRoundMinRTT / 8, 4 ms, 16 ms). */
export function hyStartRttThreshold(lastRoundMinRttMs: number): number {
  return Math.min(HYSTART_MAX_RTT_THRESH_MS, Math.max(HYSTART_MIN_RTT_THRESH_MS, lastRoundMinRttMs / HYSTART_MIN_RTT_DIVISOR));
}

export class HyStartPlusPlus {
  private phaseNow: HyStartPhase = 'slow-start';
  private windowEnd: number | undefined = undefined;
  private lastRoundMinRtt = Infinity;
  private currentRoundMinRtt = Infinity;
  private rttSampleCount = 0;
  private cssBaselineMinRtt = Infinity;
  private cssRounds = 0;

  phase(): HyStartPhase {
    return this.phaseNow;
  }

  /** Slow start's growth is divided by this (4 in CSS). */
  growthDivisor(): number {
    return this.phaseNow === 'css' ? HYSTART_CSS_GROWTH_DIVISOR : 1;
  }

  /** One ACK of slow start: the phase after it, or 'exit' on the ACK that ends CSS (enter congestion avoidance now, ssthresh = cwnd). */
  onAck(ack: HyStartAck): HyStartPhase | 'exit' {
    if (this.phaseNow === 'done') return 'done';
    if (this.windowEnd === undefined) this.startRound(ack.sndNxt);
    else if (ack.sndUna >= this.windowEnd) {
      if (this.phaseNow === 'css' && ++this.cssRounds >= HYSTART_CSS_ROUNDS) {
        this.phaseNow = 'done';
        return 'exit';
      }
      this.startRound(ack.sndNxt);
    }
    if (ack.rttMs === undefined) return this.phaseNow;
    this.rttSampleCount++;
    this.currentRoundMinRtt = Math.min(this.currentRoundMinRtt, ack.rttMs);
    if (this.rttSampleCount < HYSTART_N_RTT_SAMPLE) return this.phaseNow;
    if (this.phaseNow === 'slow-start') {
      if (this.lastRoundMinRtt !== Infinity && this.currentRoundMinRtt >= this.lastRoundMinRtt + hyStartRttThreshold(this.lastRoundMinRtt)) {
        this.phaseNow = 'css';
        this.cssBaselineMinRtt = this.currentRoundMinRtt;
        this.cssRounds = 0;
      }
    } else if (this.currentRoundMinRtt < this.cssBaselineMinRtt) {
      this.phaseNow = 'slow-start';
      this.cssBaselineMinRtt = Infinity;
    }
    return this.phaseNow;
  }

  /** A loss or a timeout: HyStart++ is over (slow start from now on is the standard one). */
  stop(): void {
    this.phaseNow = 'done';
  }

  private startRound(sndNxt: number): void {
    this.windowEnd = sndNxt;
    this.lastRoundMinRtt = this.currentRoundMinRtt;
    this.currentRoundMinRtt = Infinity;
    this.rttSampleCount = 0;
  }
}
