// The packet statistics NADA (RFC 8698) works from, as the sender computes
// them from per-packet feedback over a window of recently sent packets
// (LOGWIN, 500 ms), the way cisco/ns3-rmcat's SenderBasedController does:
//
// - the queueing delay: one-way delay minus the least one-way delay seen
//   (d_base), through a 15-sample minimum filter (RFC 8698 Section 4.1);
// - the RTT: the time from a packet's sending to its report, through the
//   same 15-sample minimum filter;
// - lost packets and the loss ratio: the gaps in the received sequence
//   numbers within the window (at least 5 packets received);
// - the receive rate: bytes received over the window's arrival-time span
//   (the first packet's bytes not counted: it opens the span);
// - the inter-loss intervals, as TCP-friendly rate control counts them
//   (RFC 5348 Section 5.4: the last 8 closed intervals, weights 1, 1, 1, 1,
//   0.8, 0.6, 0.4, 0.2, the larger of the averages with and without the
//   open interval).
//
// Packets are added in sequence order (a packet older than the newest one
// added is ignored). A sending gap longer than 500 ms (a paused flow) makes
// the history obsolete: it starts again, d_base and the intervals with it.

export interface ReceivedPacket {
  readonly sequence: number;
  readonly sendTimeMs: number;
  readonly sizeBytes: number;
  /** Arrival time (receiver's clock) minus send time (sender's clock), ms. */
  readonly oneWayMs: number;
  /** Time the report of it reached the sender minus its send time, ms. */
  readonly rttMs: number;
}

export const HISTORY_WINDOW_MS = 500;
const MAX_SEND_GAP_MS = 500;
const MIN_FILTER_TAPS = 15;
const MIN_PACKETS_FOR_RATES = 5;
const LOSS_INTERVALS_KEPT = 9;
const LOSS_INTERVAL_WEIGHTS = [1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2];

export class PacketHistory {
  private packets: ReceivedPacket[] = [];
  private bytes = 0;
  private baseDelayMs = 0;
  /** Inter-loss intervals in packets, newest (still open) first. */
  private intervals: number[] = [0];
  private expectedSequence = 0;
  private lossSeen = false;

  constructor(private readonly windowMs = HISTORY_WINDOW_MS) {}

  add(packet: ReceivedPacket): void {
    const last = this.packets.at(-1);
    if (last !== undefined) {
      if (packet.sequence <= last.sequence || packet.sendTimeMs < last.sendTimeMs) return;
      if (packet.sendTimeMs > last.sendTimeMs + MAX_SEND_GAP_MS) this.clear();
    }
    if (this.packets.length === 0) {
      this.intervals = [0];
      this.expectedSequence = packet.sequence;
      this.lossSeen = false;
      this.baseDelayMs = packet.oneWayMs;
    } else if (packet.oneWayMs < this.baseDelayMs) {
      this.baseDelayMs = packet.oneWayMs;
    }
    this.countInterval(packet.sequence);
    this.packets.push(packet);
    this.bytes += packet.sizeBytes;
    while (this.packets[0]!.sendTimeMs + this.windowMs <= packet.sendTimeMs) {
      this.bytes -= this.packets.shift()!.sizeBytes;
    }
  }

  isEmpty(): boolean {
    return this.packets.length === 0;
  }

  /** d_queue: the least queueing delay of the newest 15 packets, ms. */
  queueingDelayMs(): number | undefined {
    return this.newestMin((p) => p.oneWayMs - this.baseDelayMs);
  }

  /** The least RTT of the newest 15 packets, ms. */
  rttMs(): number | undefined {
    return this.newestMin((p) => p.rttMs);
  }

  /** The largest queueing delay of any packet in the window, ms. */
  maxQueueingDelayMs(): number | undefined {
    if (this.packets.length === 0) return undefined;
    return Math.max(...this.packets.map((p) => p.oneWayMs)) - this.baseDelayMs;
  }

  /** Packets missing from the window's sequence numbers, and their ratio to the span. */
  loss(): { lost: number; ratio: number } | undefined {
    if (this.packets.length < MIN_PACKETS_FOR_RATES) return undefined;
    const span = this.packets.at(-1)!.sequence - this.packets[0]!.sequence + 1;
    const lost = span - this.packets.length;
    return { lost, ratio: lost / span };
  }

  /** Receive rate over the window, bit/s. */
  receiveRate(): number | undefined {
    if (this.packets.length < MIN_PACKETS_FOR_RATES) return undefined;
    const first = this.packets[0]!;
    const last = this.packets.at(-1)!;
    const spanMs = last.sendTimeMs + last.oneWayMs - (first.sendTimeMs + first.oneWayMs);
    if (!(spanMs > 0)) return undefined;
    return ((this.bytes - first.sizeBytes) * 8 * 1000) / spanMs;
  }

  /** TFRC's average inter-loss interval and the open (current) interval, in packets; undefined before the first loss. */
  lossIntervals(): { average: number; current: number } | undefined {
    if (!this.lossSeen) return undefined;
    const k = this.intervals.length;
    const weighted = (from: number) => this.intervals.slice(from, from + k - 1).reduce((sum, n, i) => sum + n * LOSS_INTERVAL_WEIGHTS[i]!, 0);
    const weights = LOSS_INTERVAL_WEIGHTS.slice(0, k - 1).reduce((a, b) => a + b, 0);
    return { average: Math.max(weighted(0), weighted(1)) / weights, current: this.intervals[0]! };
  }

  private countInterval(sequence: number): void {
    if (sequence === this.expectedSequence) {
      this.intervals[0]!++;
    } else {
      this.intervals.unshift(1);
      if (this.intervals.length > LOSS_INTERVALS_KEPT) this.intervals.pop();
      this.lossSeen = true;
    }
    this.expectedSequence = sequence + 1;
  }

  private newestMin(value: (p: ReceivedPacket) => number): number | undefined {
    if (this.packets.length === 0) return undefined;
    let min = Infinity;
    for (let i = this.packets.length - 1; i >= Math.max(0, this.packets.length - MIN_FILTER_TAPS); i--) min = Math.min(min, value(this.packets[i]!));
    return min;
  }

  private clear(): void {
    this.packets = [];
    this.bytes = 0;
  }
}
