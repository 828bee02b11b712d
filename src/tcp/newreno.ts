// NewReno's window (RFC 5681 with the fast recovery of RFC 6582, which the
// sender carries out): slow start, then congestion avoidance by byte counting
// (RFC 5681 3.1 / RFC 3465: one MSS more each time a window's worth of bytes
// has been acknowledged, i.e. one MSS per round trip whether or not the
// receiver delays its ACKs), ssthresh = max(FlightSize / 2, 2 MSS) on a
// congestion event and on a timeout, cwnd = 1 MSS after a timeout. Slow
// start is slow-start.ts's: by default the standard one, as Linux's Reno
// runs it; 'hystart++' (RFC 9406) on request.
import { initialWindowBytes, type CongestionControl, type CongestionControlOptions } from './congestion-control.ts';
import { SlowStart, type SlowStartAck, type SlowStartKind } from './slow-start.ts';

/** Linux's Reno (tcp_reno_cong_avoid) slow-starts without HyStart. */
export const DEFAULT_NEWRENO_SLOW_START: SlowStartKind = 'standard';

export class NewReno implements CongestionControl {
  readonly name = 'newreno' as const;
  cwnd: number;
  ssthresh = Infinity;
  private readonly mss: number;
  /** Bytes acknowledged since cwnd last grew in congestion avoidance. */
  private bytesAcked = 0;
  readonly slowStart: SlowStart;

  constructor(options: CongestionControlOptions) {
    this.mss = options.mss;
    this.cwnd = initialWindowBytes(options);
    this.slowStart = new SlowStart({ ...options, slowStart: options.slowStart ?? DEFAULT_NEWRENO_SLOW_START });
  }

  onAck(ackedBytes: number, _nowMs: number, _srttMs: number, ack?: SlowStartAck): void {
    if (this.cwnd < this.ssthresh) {
      const step = this.slowStart.onAck(ackedBytes, this.cwnd, ack);
      this.cwnd += step.increase;
      if (step.exit) this.ssthresh = this.cwnd;
      return;
    }
    this.bytesAcked += ackedBytes;
    if (this.bytesAcked >= this.cwnd) {
      this.bytesAcked -= this.cwnd;
      this.cwnd += this.mss;
    }
  }

  onCongestion(_nowMs: number, flightBytes: number): void {
    this.slowStart.onCongestion();
    this.ssthresh = Math.max(flightBytes / 2, 2 * this.mss);
    this.bytesAcked = 0;
  }

  onTimeout(_nowMs: number, flightBytes: number): void {
    this.slowStart.onTimeout();
    this.ssthresh = Math.max(flightBytes / 2, 2 * this.mss);
    this.cwnd = this.mss;
    this.bytesAcked = 0;
  }
}
