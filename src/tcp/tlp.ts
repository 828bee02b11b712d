// Tail Loss Probe (RFC 8985 section 7): when the ACKs stop before the RTO
// while data is in flight, send one probe, so that a loss at the tail of a
// flight is found by RACK or fast recovery instead of the retransmission
// timer.
//
// - PTO (7.2): 2 SRTT, plus WCDelAckT (200 ms, the worst-case delayed ACK)
//   when one segment is in flight; 1 s without an SRTT; never later than
//   the RTO would fire. Armed after new data is sent or new data is
//   acknowledged, outside recovery, while no probe episode is open.
// - The probe (7.3): a new segment if there is one and the receive window
//   allows it (the congestion window does not apply), else the last segment
//   sent again. TLP.end_seq = SND.NXT after it; then the RTO is re-armed.
// - The episode's end (7.4.2): an ACK at or beyond TLP.end_seq ends it; a
//   probe of new data needs nothing more (RACK sees the losses); a
//   retransmitted probe whose ACK goes beyond TLP.end_seq repaired a loss
//   the sender has not reacted to: the congestion control reduces (as
//   Linux's tcp_process_tlp_ack: ssthresh, then cwnd = ssthresh). A
//   duplicate ACK without SACK blocks ends it without a reduction (the
//   receiver had the data: the probe was the duplicate). The model's
//   receiver sends no DSACK, so that is the only sign of a needless probe.
//
// Pure: the sender asks it when to probe and tells it what the ACKs say.

/** WCDelAckT, ms: the worst-case delayed-ACK time RFC 8985 assumes (Linux adds TCP_RTO_MIN, also 200 ms). */
export const TLP_WC_DEL_ACK_MS = 200;
/** PTO before any RTT sample, ms. */
export const TLP_INITIAL_PTO_MS = 1000;

/** PTO of RFC 8985 7.2, ms from now. */
export function probeTimeout(srttMs: number | undefined, flightSegments: number, rtoRemainingMs: number): number {
  let pto = srttMs === undefined ? TLP_INITIAL_PTO_MS : 2 * srttMs;
  if (srttMs !== undefined && flightSegments === 1) pto += TLP_WC_DEL_ACK_MS;
  return Math.min(pto, rtoRemainingMs);
}

export class TailLossProbe {
  private endSeq: number | undefined = undefined;
  private isRetrans = false;

  /** No probe episode open: a PTO may be armed. */
  canArm(): boolean {
    return this.endSeq === undefined;
  }

  /** A probe was sent; `endSeq` is SND.NXT after it. */
  onProbe(endSeq: number, isRetransmission: boolean): void {
    this.endSeq = endSeq;
    this.isRetrans = isRetransmission;
  }

  /** An ACK: true when it shows the retransmitted probe alone repaired a loss (reduce the window). */
  onAck(ack: number, duplicateWithoutSack: boolean): boolean {
    if (this.endSeq === undefined || ack < this.endSeq) return false;
    if (!this.isRetrans || duplicateWithoutSack) {
      this.endSeq = undefined;
      return false;
    }
    if (ack > this.endSeq) {
      this.endSeq = undefined;
      return true;
    }
    return false;
  }

  /** A timeout or recovery took over: the episode is over. */
  reset(): void {
    this.endSeq = undefined;
  }
}
