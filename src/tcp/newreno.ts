// NewReno's window (RFC 5681 with the fast recovery of RFC 6582, which the
// sender carries out): slow start, then congestion avoidance by byte counting
// (RFC 5681 3.1 / RFC 3465: one MSS more each time a window's worth of bytes
// has been acknowledged, i.e. one MSS per round trip whether or not the
// receiver delays its ACKs), ssthresh = max(FlightSize / 2, 2 MSS) on a
// congestion event and on a timeout, cwnd = 1 MSS after a timeout.
import { initialWindowBytes, slowStartIncrease, type CongestionControl, type CongestionControlOptions } from './congestion-control.ts';

export class NewReno implements CongestionControl {
  readonly name = 'newreno' as const;
  cwnd: number;
  ssthresh = Infinity;
  private readonly mss: number;
  /** Bytes acknowledged since cwnd last grew in congestion avoidance. */
  private bytesAcked = 0;

  constructor(private readonly options: CongestionControlOptions) {
    this.mss = options.mss;
    this.cwnd = initialWindowBytes(options);
  }

  onAck(ackedBytes: number): void {
    if (this.cwnd < this.ssthresh) {
      this.cwnd += slowStartIncrease(ackedBytes, this.options);
      return;
    }
    this.bytesAcked += ackedBytes;
    if (this.bytesAcked >= this.cwnd) {
      this.bytesAcked -= this.cwnd;
      this.cwnd += this.mss;
    }
  }

  onCongestion(_nowMs: number, flightBytes: number): void {
    this.ssthresh = Math.max(flightBytes / 2, 2 * this.mss);
    this.bytesAcked = 0;
  }

  onTimeout(_nowMs: number, flightBytes: number): void {
    this.ssthresh = Math.max(flightBytes / 2, 2 * this.mss);
    this.cwnd = this.mss;
    this.bytesAcked = 0;
  }
}
