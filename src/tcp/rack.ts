// RACK's loss detection (RFC 8985 section 6): a segment is lost once a
// segment sent after it has been delivered (cumulatively acknowledged or
// SACKed) and more than RACK.rtt + RACK.reo_wnd has passed since it was
// sent; time, not a count of duplicate ACKs.
//
// - RACK.xmit_ts, RACK.end_seq, RACK.rtt: of the most recently sent segment
//   delivered so far (6.2 step 2); a retransmitted segment acknowledged
//   sooner than min_RTT after its retransmission is ignored (the ACK is for
//   the original);
// - reordering (step 3): a segment never retransmitted delivered below
//   RACK.fack, the highest end delivered by the ACKs before this one, is
//   reordering (Linux's tcp_clean_rtx_queue compares with prior_fack, the
//   highest SACKed sequence before the ACK: an ACK that cumulatively
//   acknowledges a segment and SACKs one above a hole, the first ACK after a
//   loss, is no reordering);
// - RACK.reo_wnd (step 4, without DSACK-driven growth): 0 while no
//   reordering has been seen and the sender is in recovery or has at least
//   3 segments SACKed (DupThresh), else min(min_RTT / 4, SRTT);
// - a segment sent before RACK.xmit_ts is lost when xmit_ts + RACK.rtt +
//   reo_wnd <= now; else it will be at that time, which sets the reordering
//   timer (step 5). Two segments sent in the same millisecond are ordered by
//   when they were sent (`order`, the sender's count of transmissions), as
//   Linux's microsecond send times order them; RFC 8985's tie-break by
//   sequence number (kept when no order is given) misreads a retransmission
//   sent after new data in the same millisecond as sent before it, and deems
//   it lost once that new data is SACKed.
//
// Pure: the sender hands it the segments delivered by each ACK and asks for
// each segment in flight.

/** DupThresh, RFC 8985 6.2: with no reordering seen, reo_wnd is 0 once this many segments are SACKed. */
export const RACK_DUP_THRESH = 3;

export interface RackSegment {
  /** One past the segment's last byte. */
  readonly end: number;
  /** When it was last sent, ms. */
  readonly xmitMs: number;
  /** Whether it was ever retransmitted. */
  readonly retransmitted: boolean;
  /** The sender's count of transmissions when it was last sent (orders segments sent at the same time). */
  readonly order?: number;
}

/** > 0 if `a` was sent after the segment sent at `xmitMs` (with `order`, ending at `end`), < 0 if before, 0 if it is that one. */
function compareSent(a: RackSegment, xmitMs: number, order: number | undefined, end: number): number {
  if (a.xmitMs !== xmitMs) return a.xmitMs - xmitMs;
  return a.order !== undefined && order !== undefined ? a.order - order : a.end - end;
}

export class Rack {
  private xmitTs = -Infinity;
  private endSeq = 0;
  private xmitOrder: number | undefined = undefined;
  private rttMs: number | undefined = undefined;
  private fack = 0;
  /** RACK.fack before the ACK being processed. */
  private priorFack = 0;
  private minRttMs = Infinity;
  private reorderingSeen = false;

  /** An RTT sample (the sender's, Karn's rule applied): keeps min_RTT. */
  onRttSample(rttMs: number): void {
    if (rttMs < this.minRttMs) this.minRttMs = rttMs;
  }

  /** An ACK arrives: the segments it delivers are compared with RACK.fack as it stood before it. */
  beginAck(): void {
    this.priorFack = this.fack;
  }

  /** A segment this ACK newly delivered (cumulatively or by SACK). */
  onDelivered(segment: RackSegment, nowMs: number): void {
    const rtt = nowMs - segment.xmitMs;
    if (!segment.retransmitted && segment.end < this.priorFack) this.reorderingSeen = true;
    if (segment.end > this.fack) this.fack = segment.end;
    if (segment.retransmitted && rtt < this.minRttMs) return;
    if (compareSent(segment, this.xmitTs, this.xmitOrder, this.endSeq) > 0) {
      this.xmitTs = segment.xmitMs;
      this.endSeq = segment.end;
      this.xmitOrder = segment.order;
      this.rttMs = rtt;
    }
  }

  /** RACK.reo_wnd for the sender's state now. */
  reorderingWindow(inRecovery: boolean, sackedSegments: number, srttMs: number): number {
    if (!this.reorderingSeen && (inRecovery || sackedSegments >= RACK_DUP_THRESH)) return 0;
    const quarter = this.minRttMs === Infinity ? 0 : this.minRttMs / 4;
    return Math.min(quarter, srttMs);
  }

  /**
   * For a segment in flight, neither SACKed nor marked lost: ms until RACK deems it lost (<= 0: lost now), or
   * Infinity when no segment sent after it has been delivered.
   */
  remaining(segment: RackSegment, nowMs: number, reoWndMs: number): number {
    if (this.rttMs === undefined) return Infinity;
    if (compareSent(segment, this.xmitTs, this.xmitOrder, this.endSeq) >= 0) return Infinity;
    return segment.xmitMs + this.rttMs + reoWndMs - nowMs;
  }

  state(): { xmitTs: number; endSeq: number; rttMs: number | undefined; minRttMs: number; reorderingSeen: boolean } {
    return { xmitTs: this.xmitTs, endSeq: this.endSeq, rttMs: this.rttMs, minRttMs: this.minRttMs, reorderingSeen: this.reorderingSeen };
  }
}
