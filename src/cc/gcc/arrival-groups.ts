// GCC's pre-filtering (draft-ietf-rmcat-gcc-02, 5.2): packets are grouped by
// send time, a group holding the packets sent within `burstTimeMs` (5 ms) of
// its first packet; a packet that arrives less than `burstTimeMs` after the
// previous one and whose inter-departure time exceeds its inter-arrival time
// (it caught up in the network: a burst the queue released at once) joins
// the current group too. When a packet opens a new group, the group before
// is complete, and the filter gives the inter-group delay variation of the
// last two complete groups:
//   d(i) = (t(i) - t(i-1)) - (T(i) - T(i-1)),
// t the arrival and T the send time of each group's last packet.
// Pure: packets go in, in sequence order, deltas come out.

export interface TimedPacket {
  /** Sender's clock, ms. */
  readonly sendTimeMs: number;
  /** Receiver's clock, ms. */
  readonly arrivalTimeMs: number;
  readonly sizeBytes: number;
}

export interface ArrivalGroup {
  firstSendMs: number;
  lastSendMs: number;
  firstArrivalMs: number;
  lastArrivalMs: number;
  sizeBytes: number;
  packets: number;
}

export interface GroupDelta {
  /** T(i) - T(i-1), ms. */
  readonly sendDeltaMs: number;
  /** t(i) - t(i-1), ms. */
  readonly arrivalDeltaMs: number;
  /** d(i) = arrivalDeltaMs - sendDeltaMs, ms. */
  readonly delayVariationMs: number;
  /** t(i): the newer group's last arrival, receiver's clock, ms. */
  readonly arrivalTimeMs: number;
  /** Packets and bytes of the newer group. */
  readonly packets: number;
  readonly sizeBytes: number;
}

export class ArrivalGroupFilter {
  private current: ArrivalGroup | undefined;
  private previous: ArrivalGroup | undefined;
  /** Packets ignored because they were sent before the current group began (reordered). */
  reordered = 0;

  /**
   * `maxBurstMs`: a burst joins the current group only while it arrives
   * within this many ms of the group's first arrival (libwebrtc's
   * kMaxBurstDuration, 100 ms; the draft has no such cap: Infinity).
   */
  constructor(readonly burstTimeMs = 5, readonly maxBurstMs = Infinity) {
    if (!(burstTimeMs >= 0)) throw new RangeError(`burstTimeMs must be >= 0, got ${burstTimeMs}`);
    if (!(maxBurstMs > 0)) throw new RangeError(`maxBurstMs must be > 0, got ${maxBurstMs}`);
  }

  /** The group being filled, if any (a copy). */
  currentGroup(): ArrivalGroup | undefined {
    return this.current && { ...this.current };
  }

  /** Adds the next received packet; returns the delta of the last two complete groups when this packet completes one. */
  add(packet: TimedPacket): GroupDelta | undefined {
    const g = this.current;
    if (g === undefined) {
      this.current = newGroup(packet);
      return undefined;
    }
    if (packet.sendTimeMs < g.firstSendMs) {
      this.reordered++;
      return undefined;
    }
    if (this.belongsTo(g, packet)) {
      g.lastSendMs = Math.max(g.lastSendMs, packet.sendTimeMs);
      g.lastArrivalMs = Math.max(g.lastArrivalMs, packet.arrivalTimeMs);
      g.sizeBytes += packet.sizeBytes;
      g.packets++;
      return undefined;
    }
    let delta: GroupDelta | undefined;
    const p = this.previous;
    if (p !== undefined) {
      const sendDeltaMs = g.lastSendMs - p.lastSendMs;
      const arrivalDeltaMs = g.lastArrivalMs - p.lastArrivalMs;
      // Groups that arrived out of order say nothing about a queue.
      if (arrivalDeltaMs >= 0) {
        delta = { sendDeltaMs, arrivalDeltaMs, delayVariationMs: arrivalDeltaMs - sendDeltaMs, arrivalTimeMs: g.lastArrivalMs, packets: g.packets, sizeBytes: g.sizeBytes };
      }
    }
    this.previous = g;
    this.current = newGroup(packet);
    return delta;
  }

  private belongsTo(g: ArrivalGroup, packet: TimedPacket): boolean {
    if (packet.sendTimeMs - g.firstSendMs <= this.burstTimeMs) return true;
    const arrivalGap = packet.arrivalTimeMs - g.lastArrivalMs;
    const sendGap = packet.sendTimeMs - g.lastSendMs;
    return arrivalGap < this.burstTimeMs && arrivalGap - sendGap < 0 && packet.arrivalTimeMs - g.firstArrivalMs < this.maxBurstMs;
  }
}

function newGroup(packet: TimedPacket): ArrivalGroup {
  return { firstSendMs: packet.sendTimeMs, lastSendMs: packet.sendTimeMs, firstArrivalMs: packet.arrivalTimeMs, lastArrivalMs: packet.arrivalTimeMs, sizeBytes: packet.sizeBytes, packets: 1 };
}
