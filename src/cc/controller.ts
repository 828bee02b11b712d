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

/**
 * The media a window-based sender has produced and not yet sent, oldest
 * first, as its controller sees it (the media flow holds it: media-flow.ts).
 */
export interface SendQueue {
  /** Bytes waiting. */
  bytes(): number;
  /** Packets waiting. */
  packets(): number;
  /** Bytes of the oldest packet, or undefined when none waits. */
  headSizeBytes(): number | undefined;
  /** How long the oldest packet has waited at `nowMs`, ms (0 when none waits). */
  headWaitMs(nowMs: number): number;
  /** Bytes the source produced at its last production. */
  lastFrameBytes(): number;
  /** Discards every waiting packet (a controller that finds the queue too old). */
  clear(): void;
}

/**
 * A window-based controller (SCReAM, RFC 8298): besides the rate the source
 * produces at, it decides when each packet may leave. The media flow queues
 * what the source produces (SendQueue) and sends the oldest packet only when
 * transmitDelayMs says 0; it asks again after a production, a feedback
 * report, a packet sent, and when the delay it was given has passed.
 */
export interface WindowedRateController extends RateController {
  /** The source produced `bytes` of media at `nowMs`; they wait in `queue`. */
  onMediaProduced(bytes: number, nowMs: number, queue: SendQueue): void;
  /** 0: the oldest packet may leave now; > 0: ask again in that many ms (pacing); undefined: not now (the window is full or nothing waits). */
  transmitDelayMs(nowMs: number, queue: SendQueue): number | undefined;
}

export function isWindowed(controller: RateController): controller is WindowedRateController {
  const c = controller as Partial<WindowedRateController>;
  return typeof c.onMediaProduced === 'function' && typeof c.transmitDelayMs === 'function';
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
