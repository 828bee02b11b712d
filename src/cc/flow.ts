// A flow: the two ends of one transfer (a media stream under some congestion
// controller, a TCP connection, a Salsify call) written only against
// EndpointContext, so the same flow runs in the simulator, alone or among
// others on a shared bottleneck, and over real sockets. Every producer of
// traffic that the RFC 8867 suite or a multi-flow simulation runs is a
// FlowFactory.
import type { EndpointContext } from '../net/endpoint.ts';

export interface FlowOptions {
  /** The flow's number within its run (0, 1, ...): for labels and for forking seeds. */
  readonly flowId: number;
  /** Seed of every random draw the flow makes (a flow that draws none ignores it). */
  readonly seed: string;
}

/** A running flow, as the one who runs it controls it. */
export interface Flow {
  /** Starts sending. Called once, at the flow's start time. */
  start(): void;
  /** Stops sending media for a while (RFC 8867 5.8); feedback keeps flowing. */
  pause(): void;
  /** Sends again after pause(). */
  resume(): void;
  /** Stops for good: no more data from the sender, no more timers from either end. */
  stop(): void;
  /** The sender's current target bitrate in bit/s, if it has one (Salsify's sender has none). */
  targetBitrate?(): number;
}

export interface FlowFactory {
  /** Short name for tables and logs ("gcc", "aimd", "tcp-cubic", "salsify-1"). */
  readonly name: string;
  /**
   * Builds both ends: `sender` is the context of the end that sends the data,
   * `receiver` that of the end that receives it and sends feedback.
   * Nothing is sent before start().
   */
  create(sender: EndpointContext, receiver: EndpointContext, options: FlowOptions): Flow;
}
