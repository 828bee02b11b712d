// Proportional Rate Reduction (RFC 6937): how much a sender in fast recovery
// may send on each ACK, so that by the end of recovery the data in flight has
// come down to ssthresh smoothly (PRR's proportional part), and never below
// it by more than the bound allows (PRR-SSRB, the slow-start reduction bound,
// RFC 6937's recommendation and what Linux runs):
//
//   on entering recovery: prr_delivered = prr_out = 0, RecoverFS = FlightSize
//   on every ACK in recovery (DeliveredData: bytes newly cumulatively
//   acknowledged or SACKed by it):
//     prr_delivered += DeliveredData
//     if pipe > ssthresh: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
//     else:               sndcnt = MIN(ssthresh - pipe, MAX(prr_delivered - prr_out, DeliveredData) + MSS)
//     cwnd = pipe + MAX(sndcnt, 0)
//   on every segment sent in recovery: prr_out += its bytes
//
// Linux (tcp_cwnd_reduction) differs in two details: RecoverFS is the cwnd
// before the reduction (prior_cwnd), and it forces one segment out on the
// first ACK of recovery; with the fast retransmit counted in prr_out, as the
// sender does, the second makes no difference. Pure: the sender gives it
// pipe and DeliveredData.

export type PrrBound = 'ssrb' | 'crb';

export class ProportionalRateReduction {
  private prrDelivered = 0;
  private prrOut = 0;

  constructor(
    readonly ssthresh: number,
    /** FlightSize when recovery began, bytes. */
    readonly recoverFs: number,
    readonly mss: number,
    /** PRR-SSRB (default) or PRR-CRB, the conservative bound. */
    readonly bound: PrrBound = 'ssrb',
  ) {}

  /** One ACK in recovery: the new cwnd, bytes (pipe + sndcnt). */
  onAck(deliveredBytes: number, pipeBytes: number): number {
    this.prrDelivered += deliveredBytes;
    let sndcnt: number;
    if (pipeBytes > this.ssthresh) {
      sndcnt = Math.ceil((this.prrDelivered * this.ssthresh) / Math.max(this.recoverFs, 1)) - this.prrOut;
    } else {
      const limit = this.bound === 'crb' ? this.prrDelivered - this.prrOut : Math.max(this.prrDelivered - this.prrOut, deliveredBytes) + this.mss;
      sndcnt = Math.min(this.ssthresh - pipeBytes, limit);
    }
    return pipeBytes + Math.max(sndcnt, 0);
  }

  /** Bytes sent (new data or retransmitted) during recovery. */
  onSend(bytes: number): void {
    this.prrOut += bytes;
  }

  state(): { prrDelivered: number; prrOut: number } {
    return { prrDelivered: this.prrDelivered, prrOut: this.prrOut };
  }
}
