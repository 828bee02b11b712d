// The sender's per-segment record for RACK (RFC 8985): when each segment in
// flight was last sent, whether it was ever retransmitted, SACKed, or deemed
// lost (and not sent again since), by the segment's first byte (segments
// start at multiples of the MSS). It hands RACK (rack.ts) each delivery and
// asks it, segment by segment, which are lost.
import { Rack } from './rack.ts';

export class RackScoreboard {
  readonly rack = new Rack();
  private readonly xmitTimes = new Map<number, number>();
  /** The count of transmissions when each segment was last sent: orders segments sent in the same millisecond. */
  private readonly xmitOrders = new Map<number, number>();
  private transmissions = 0;
  private readonly retransmitted = new Set<number>();
  private readonly sacked = new Set<number>();
  private readonly lost = new Set<number>();

  constructor(private readonly mss: number) {}

  /** A segment (re)sent now. */
  onSend(seq: number, nowMs: number, retransmission: boolean): void {
    this.xmitTimes.set(seq, nowMs);
    this.xmitOrders.set(seq, ++this.transmissions);
    if (retransmission) {
      this.retransmitted.add(seq);
      this.lost.delete(seq);
    }
  }

  /** The whole segments in [start, end) newly SACKed are delivered; returns their first bytes. */
  onSackBlock(start: number, end: number, sndMax: number, nowMs: number): number[] {
    const newly: number[] = [];
    for (let seq = Math.ceil(start / this.mss) * this.mss; seq < end; seq += this.mss) {
      const segmentEnd = Math.min(seq + this.mss, sndMax);
      if (segmentEnd > end || this.sacked.has(seq)) continue;
      this.sacked.add(seq);
      this.lost.delete(seq);
      this.delivered(seq, segmentEnd, nowMs);
      newly.push(seq);
    }
    return newly;
  }

  /** A segment cumulatively acknowledged: delivered (unless SACKed before), then forgotten. */
  onCumulativeAck(seq: number, end: number, nowMs: number): void {
    if (!this.sacked.has(seq)) this.delivered(seq, end, nowMs);
    this.xmitTimes.delete(seq);
    this.xmitOrders.delete(seq);
    this.retransmitted.delete(seq);
    this.sacked.delete(seq);
    this.lost.delete(seq);
  }

  /** A timeout: no segment stays marked lost; SACKed ones stay SACKed unless `dropSacked`. */
  onTimeout(dropSacked: boolean): void {
    this.lost.clear();
    if (dropSacked) this.sacked.clear();
  }

  /** When the segment starting at `seq` was last (re)sent, if it is in flight. */
  lastSentAt(seq: number): number | undefined {
    return this.xmitTimes.get(seq);
  }

  isSacked(seq: number): boolean {
    return this.sacked.has(seq);
  }

  /** Neither SACKed nor deemed lost: in the pipe. */
  isInFlight(seq: number): boolean {
    return !this.sacked.has(seq) && !this.lost.has(seq);
  }

  sackedCount(): number {
    return this.sacked.size;
  }

  lowestLost(): number | undefined {
    let lowest: number | undefined;
    for (const seq of this.lost) if (!this.sacked.has(seq) && (lowest === undefined || seq < lowest)) lowest = seq;
    return lowest;
  }

  /** RFC 8985 6.2 step 5 over [sndUna, sndMax): marks the segments now lost; `marked` if any was, `nextMs` until the next one would be (Infinity: none). */
  detectLosses(sndUna: number, sndMax: number, nowMs: number, reoWndMs: number): { marked: boolean; nextMs: number } {
    let marked = false;
    let nextMs = Infinity;
    for (let seq = sndUna; seq < sndMax; seq += this.mss) {
      if (this.sacked.has(seq) || this.lost.has(seq)) continue;
      const xmitMs = this.xmitTimes.get(seq);
      if (xmitMs === undefined) continue;
      const remaining = this.rack.remaining({ end: Math.min(seq + this.mss, sndMax), xmitMs, retransmitted: this.retransmitted.has(seq), order: this.xmitOrders.get(seq) }, nowMs, reoWndMs);
      if (remaining <= 0) {
        this.lost.add(seq);
        marked = true;
      } else if (remaining < nextMs) nextMs = remaining;
    }
    return { marked, nextMs };
  }

  private delivered(seq: number, end: number, nowMs: number): void {
    const xmitMs = this.xmitTimes.get(seq);
    if (xmitMs !== undefined) this.rack.onDelivered({ end, xmitMs, retransmitted: this.retransmitted.has(seq), order: this.xmitOrders.get(seq) }, nowMs);
  }
}
