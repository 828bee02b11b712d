// A rate controller: the part of a real-time media sender that turns
// feedback into a target bitrate, and nothing else. It is pure: a function
// of the packets it is told were sent, the feedback it is told arrived and
// the times it is given; no clock, no sockets. A media flow (media-flow.ts)
// puts one to work over EndpointContext: it paces packets at the target,
// numbers them with transport-wide sequence numbers, and carries the
// receiver's feedback back every 100 ms. GCC, the AIMD reference and a
// user's own module (`ccbench --controller PATH.ts`) all implement this.

export interface SentPacket {
  /** Transport-wide sequence number (0, 1, 2, ... per flow, never reused). */
  readonly sequence: number;
  /** Bytes of the datagram's payload. */
  readonly sizeBytes: number;
  /** Sender's clock, ms. */
  readonly sendTimeMs: number;
}

export interface PacketReport {
  readonly sequence: number;
  /** Receiver's clock, ms; undefined if the packet had not arrived when the report was made. */
  readonly arrivalTimeMs: number | undefined;
}

/** One feedback message, as transport-wide congestion control feedback carries it. */
export interface FeedbackReport {
  /** Every sequence number from the first not yet reported up to the highest received, in order. */
  readonly packets: readonly PacketReport[];
}

export interface RateController {
  readonly name: string;
  /** The rate the sender should send at now, bit/s. */
  targetBitrate(): number;
  /**
   * Optional: the rate the pacer should send at now, when it differs from
   * the target (a bandwidth probe: GCC's start-up probing); default the
   * target. The sender's media is then sent at this rate.
   */
  pacingBitrate?(): number;
  /** Told of every packet when it leaves the sender. */
  onPacketSent(packet: SentPacket): void;
  /** Told of every feedback report when it reaches the sender (`nowMs`: sender's clock). */
  onFeedback(report: FeedbackReport, nowMs: number): void;
}

export interface RateControllerOptions {
  /** bit/s */
  readonly initialBitrate: number;
  readonly minBitrate: number;
  readonly maxBitrate: number;
}

/**
 * What a controller module exports (`ccbench --controller PATH.ts` loads it):
 * `export const name = '...'` and `export function createController(options)`.
 */
export interface RateControllerModule {
  readonly name: string;
  createController(options: RateControllerOptions): RateController;
}
