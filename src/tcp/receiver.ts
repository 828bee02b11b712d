// The receiving end of one modelled TCP connection: answers the SYN with a
// SYN-ACK, takes data in order, buffers what arrives out of order, and
// acknowledges cumulatively (the next byte expected, and a fixed receive
// window), with delayed ACKs as RFC 1122 4.2.3.2 and RFC 5681 4.2 ask:
//
// - in-order data is acknowledged once at least two full-size segments
//   (2 MSS bytes) are unacknowledged, or when the delayed-ACK timer expires:
//   `delayedAckMs` after the first unacknowledged segment arrived (default
//   40 ms, Linux's minimum delayed-ACK time; RFC 1122 allows up to 500 ms);
// - an out-of-order segment (a duplicate ACK), a segment that fills all or
//   part of a gap, an old duplicate segment and the last segment (FIN) are
//   acknowledged at once.
//
// With `sack`, every ACK sent while data is held beyond a gap carries up to 4
// SACK blocks (RFC 2018): first the range the latest segment joined, then
// the others from the lowest. Linux's quick-ACK mode at the start of a
// connection is not modelled.
import type { TimerHandle } from '../common/timer.ts';
import { DEFAULT_MSS, encodeSegment, FLAG_ACK, FLAG_FIN, FLAG_SACK, FLAG_SYN, MAX_SACK_BLOCKS, type Segment } from './segment.ts';
import type { TcpClock } from './sender.ts';
import { insertByteRange, type ByteRange } from './byte-ranges.ts';

export const DEFAULT_DELAYED_ACK_MS = 40;
/** 1 GiB: never the bottleneck at the rates the toolkit emulates. */
export const DEFAULT_RECEIVE_WINDOW = 2 ** 30;

export interface TcpReceiverOptions {
  /** The sender's MSS, bytes (default 1448): "two full-size segments" is 2 MSS. */
  readonly mss?: number;
  /** Delayed-ACK timer, ms (default 40). 0 acknowledges every segment at once. */
  readonly delayedAckMs?: number;
  /** Advertised receive window, bytes (default 1 GiB). */
  readonly receiveWindow?: number;
  /** Report out-of-order ranges in SACK blocks (RFC 2018; default off). */
  readonly sack?: boolean;
}

export interface TcpReceiverStats {
  /** Bytes delivered in order to the application. */
  bytesDelivered: number;
  segmentsReceived: number;
  /** Segments that arrived beyond a gap. */
  outOfOrder: number;
  /** Segments wholly below the next byte expected (retransmissions of what had arrived). */
  duplicates: number;
  acksSent: number;
  /** Time the last byte (FIN) was delivered, undefined before. */
  completedAtMs: number | undefined;
}

export class TcpReceiver {
  readonly stats: TcpReceiverStats = { bytesDelivered: 0, segmentsReceived: 0, outOfOrder: 0, duplicates: 0, acksSent: 0, completedAtMs: undefined };
  private readonly mss: number;
  private readonly delayedAckMs: number;
  private readonly window: number;
  private readonly sack: boolean;
  /** The out-of-order range the latest segment went into (RFC 2018: the first SACK block). */
  private latestRange: [number, number] | undefined = undefined;
  private rcvNxt = 0;
  private lastAcked = 0;
  /** Out-of-order data: disjoint [start, end) ranges above rcvNxt, in order. */
  private readonly ranges: ByteRange[] = [];
  private finalByte = Infinity;
  private delayedAck: TimerHandle | undefined = undefined;
  private closed = false;

  constructor(
    readonly connection: number,
    private readonly send: (bytes: Uint8Array) => void,
    private readonly clock: TcpClock,
    options: TcpReceiverOptions = {},
  ) {
    this.mss = options.mss ?? DEFAULT_MSS;
    this.delayedAckMs = options.delayedAckMs ?? DEFAULT_DELAYED_ACK_MS;
    this.window = options.receiveWindow ?? DEFAULT_RECEIVE_WINDOW;
    this.sack = options.sack ?? false;
    if (!(this.delayedAckMs >= 0) || !Number.isFinite(this.delayedAckMs)) throw new RangeError(`delayedAckMs must be a finite number of ms >= 0, got ${this.delayedAckMs}`);
    if (!Number.isInteger(this.window) || this.window < 1 || this.window > 2 ** 32 - 1) throw new RangeError(`receiveWindow must be a whole number of bytes in [1, 2^32 - 1], got ${this.window}`);
  }

  /** The next byte expected. */
  nextExpected(): number {
    return this.rcvNxt;
  }

  /** Out-of-order bytes held. */
  bufferedBytes(): number {
    return this.ranges.reduce((sum, [start, end]) => sum + end - start, 0);
  }

  isComplete(): boolean {
    return this.stats.completedAtMs !== undefined;
  }

  close(): void {
    this.closed = true;
    this.delayedAck?.cancel();
    this.delayedAck = undefined;
  }

  receive(segment: Segment): void {
    if (this.closed) return;
    if ((segment.flags & FLAG_SYN) !== 0) {
      this.send(encodeSegment({ flags: FLAG_SYN | FLAG_ACK, connection: this.connection, seq: 0, ack: this.rcvNxt, window: this.window, length: 0 }));
      return;
    }
    if (segment.length === 0) return;
    this.stats.segmentsReceived++;
    const start = segment.seq;
    const end = start + segment.length;
    if ((segment.flags & FLAG_FIN) !== 0) this.finalByte = end;
    if (end <= this.rcvNxt) {
      this.stats.duplicates++;
      this.ackNow();
      return;
    }
    if (start > this.rcvNxt) {
      this.stats.outOfOrder++;
      this.latestRange = insertByteRange(this.ranges, start, end);
      this.ackNow();
      return;
    }
    const hadGap = this.ranges.length > 0;
    this.rcvNxt = end;
    while (this.ranges.length > 0 && this.ranges[0][0] <= this.rcvNxt) {
      const [, rangeEnd] = this.ranges.shift()!;
      if (rangeEnd > this.rcvNxt) this.rcvNxt = rangeEnd;
    }
    this.stats.bytesDelivered = this.rcvNxt;
    if (this.rcvNxt >= this.finalByte && this.stats.completedAtMs === undefined) this.stats.completedAtMs = this.clock.now();
    if (hadGap || this.rcvNxt >= this.finalByte || this.rcvNxt - this.lastAcked >= 2 * this.mss || this.delayedAckMs === 0) {
      this.ackNow();
    } else if (this.delayedAck === undefined) {
      this.delayedAck = this.clock.setTimer(this.delayedAckMs, () => {
        this.delayedAck = undefined;
        if (!this.closed && this.rcvNxt > this.lastAcked) this.ackNow();
      });
    }
  }

  private ackNow(): void {
    this.delayedAck?.cancel();
    this.delayedAck = undefined;
    this.lastAcked = this.rcvNxt;
    this.stats.acksSent++;
    const sack = this.sack ? this.sackBlocks() : [];
    this.send(encodeSegment({ flags: FLAG_ACK | (sack.length > 0 ? FLAG_SACK : 0), connection: this.connection, seq: 0, ack: this.rcvNxt, window: this.window, length: 0, sack }));
  }

  /** Up to MAX_SACK_BLOCKS ranges: the one the latest segment joined first, then the others from the lowest. */
  private sackBlocks(): Array<[number, number]> {
    const latest = this.ranges.find((r) => this.latestRange !== undefined && r[0] <= this.latestRange[0] && r[1] >= this.latestRange[1]);
    const blocks = latest ? [latest] : [];
    for (const range of this.ranges) {
      if (blocks.length === MAX_SACK_BLOCKS) break;
      if (range !== latest) blocks.push(range);
    }
    return blocks.map(([a, b]) => [a, b]);
  }
}
