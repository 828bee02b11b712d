// What a SACK sender sends in fast recovery (RFC 6675 5, its NextSeg and
// pipe; with RACK-TLP, RFC 8985's lost segments): on each ACK, while the
// estimated pipe leaves a segment's room in cwnd, first the lowest segment
// deemed lost and not yet retransmitted, then new data.
//
// - pipe: the bytes in flight. RFC 6675: those neither SACKed nor lost
//   (IsLost: more than 2 MSS SACKed above), plus the lost ones retransmitted
//   in this recovery. RACK-TLP: those neither SACKed nor deemed lost (a
//   retransmission puts a lost segment back in flight).
// - the next retransmission. RFC 6675: the lowest segment that IsLost, is not
//   SACKed and was not retransmitted in this recovery. RACK-TLP: the lowest
//   segment deemed lost (and not sent again since).
//
// It keeps which segments it retransmitted in the current recovery; the
// connection sends (RecoverySendPort).
import type { RackScoreboard } from './rack-scoreboard.ts';
import type { SackScoreboard } from './sack-scoreboard.ts';

/** What the selection needs of the connection to send. */
export interface RecoverySendPort {
  sndUna(): number;
  sndMax(): number;
  /** Retransmits the segment starting at `seq`; its length. */
  retransmit(seq: number): number;
  /** Sends the next new segment if there is one and the receive window takes it; its length, 0 if none was sent. */
  sendNewSegment(): number;
}

export class RecoverySendSelection {
  /** Segments (by first byte) retransmitted in the current recovery. */
  private readonly retransmitted = new Set<number>();

  constructor(
    private readonly mss: number,
    /** RACK-TLP's lost segments (true) or RFC 6675's IsLost (false). */
    private readonly rack: boolean,
    private readonly board: RackScoreboard,
    private readonly scoreboard: SackScoreboard,
  ) {}

  /** A recovery began or ended, or a timeout: no segment counts as retransmitted in it. */
  reset(): void {
    this.retransmitted.clear();
  }

  /** The fast retransmit that starts a recovery. */
  onFastRetransmit(seq: number): void {
    this.retransmitted.add(seq);
  }

  /** Sends, while `pipe` leaves a segment's room in `cwnd`, the next retransmission, else new data. */
  send(port: RecoverySendPort, pipe: number, cwnd: number): void {
    let hole = port.sndUna();
    while (pipe + this.mss <= cwnd) {
      let next: number | undefined;
      if (this.rack) next = this.board.lowestLost();
      else ({ next, hole } = this.nextHole(hole, port.sndMax()));
      if (next !== undefined) {
        this.retransmitted.add(next);
        pipe += port.retransmit(next);
        continue;
      }
      const length = port.sendNewSegment();
      if (length === 0) return;
      pipe += length;
    }
  }

  /** The bytes in flight in [sndUna, sndMax). */
  pipe(sndUna: number, sndMax: number): number {
    let pipe = 0;
    for (let seq = sndUna; seq < sndMax; seq += this.mss) {
      const length = Math.min(this.mss, sndMax - seq);
      const inFlight = this.rack
        ? this.board.isInFlight(seq)
        : !this.scoreboard.covers(seq, length) && (!this.scoreboard.isLost(seq + length, this.mss) || this.retransmitted.has(seq));
      if (inFlight) pipe += length;
    }
    return pipe;
  }

  /** RFC 6675 NextSeg rule 1, scanning up from `from`: the first lost segment neither SACKed nor retransmitted (`next`), and where the scan stopped (`hole`). */
  private nextHole(from: number, sndMax: number): { next: number | undefined; hole: number } {
    let hole = from;
    for (; hole < sndMax; hole += this.mss) {
      const length = Math.min(this.mss, sndMax - hole);
      if (!this.scoreboard.isLost(hole + length, this.mss)) break;
      if (!this.scoreboard.covers(hole, length) && !this.retransmitted.has(hole)) return { next: hole, hole };
    }
    return { next: undefined, hole };
  }
}
