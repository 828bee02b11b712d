// What a TCP sender's congestion control decides: the congestion window and
// the slow-start threshold, in bytes. The sender (sender.ts) owns loss
// recovery (fast retransmit, NewReno fast recovery with partial ACKs, the
// retransmission timer); a congestion control is told of new data acked
// outside recovery, of a congestion event, of the end of recovery and of a
// timeout, and changes cwnd and ssthresh. During fast recovery the sender
// inflates and deflates cwnd itself (RFC 6582), which is why cwnd is a plain
// field. NewReno (newreno.ts) and CUBIC (cubic.ts) implement it; both slow
// start as slow-start.ts does.
import type { SlowStartAck, SlowStartKind } from './slow-start.ts';

export type TcpCcName = 'newreno' | 'cubic';

export interface CongestionControl {
  readonly name: TcpCcName;
  /** Congestion window, bytes (CUBIC's may be fractional; the sender sends whole segments). */
  cwnd: number;
  /** Slow-start threshold, bytes (Infinity until the first congestion event). */
  ssthresh: number;
  /** New data was cumulatively acknowledged outside fast recovery: grow the window (slow start or congestion avoidance). `ack` (SND.UNA, SND.NXT, the RTT sample, the time and SRTT) drives HyStart; without it slow start is the standard one. */
  onAck(ackedBytes: number, nowMs: number, srttMs: number, ack?: SlowStartAck): void;
  /** Three duplicate ACKs: set ssthresh for fast recovery (the sender then sets cwnd = ssthresh + 3 MSS). */
  onCongestion(nowMs: number, flightBytes: number): void;
  /** The retransmission timer expired: set ssthresh, cwnd to the loss window (one segment). */
  onTimeout(nowMs: number, flightBytes: number): void;
}

export interface CongestionControlOptions {
  /** Sender maximum segment size, bytes of payload. */
  readonly mss: number;
  /** Initial window in segments (default 10, RFC 6928 and Linux). */
  readonly initialWindow?: number;
  /**
   * Appropriate byte counting limit L in slow start (RFC 3465): cwnd grows by
   * min(bytes acked, L * MSS) per ACK. Default 2, so that slow start doubles
   * cwnd every round trip although the receiver acknowledges every second
   * segment (Linux counts every acked segment, to the same effect).
   */
  readonly abcLimit?: number;
  /** Slow start: 'hystart-linux' (CUBIC's default: Linux's HyStart), 'standard' (NewReno's default: RFC 5681) or 'hystart++' (RFC 9406). */
  readonly slowStart?: SlowStartKind;
}

export function initialWindowBytes(options: CongestionControlOptions): number {
  const segments = options.initialWindow ?? 10;
  if (!Number.isInteger(segments) || segments < 1) throw new RangeError(`initialWindow must be a whole number of segments >= 1, got ${segments}`);
  return segments * options.mss;
}
