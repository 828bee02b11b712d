// What the TCP flows (bulk-flow.ts, short-flows.ts) share: their options, the
// statistics they expose, and the Flow they return (a Flow of src/cc/flow.ts
// with stats()).
import type { Flow, FlowFactory, FlowOptions } from '../cc/flow.ts';
import type { EndpointContext } from '../net/endpoint.ts';
import type { TcpCcName } from './congestion-control.ts';
import { TcpReceivingEndpoint } from './endpoints.ts';
import { RtoEstimator, type RtoOptions } from './rto.ts';
import { checkSlowStartKind, type SlowStartKind } from './slow-start.ts';
import type { CwndSample } from './sender.ts';
import { TcpSendingEndpoint } from './endpoints.ts';

export interface TcpFlowOptions {
  readonly cc: TcpCcName;
  /** Payload bytes per segment (default 1448: one segment fills one 1504-byte Mahimahi opportunity). */
  readonly mss?: number;
  /** Initial window, segments (default 10: RFC 6928, Linux). */
  readonly initialWindow?: number;
  /** RFC 3465 slow-start limit L, segments per ACK (default 2). */
  readonly abcLimit?: number;
  /** Retransmission timer: minimum (default 200 ms as Linux; RFC 6298 says 1000), maximum, initial value. */
  readonly rto?: RtoOptions;
  /** Receiver's delayed-ACK timer, ms (default 40). */
  readonly delayedAckMs?: number;
  /** Receiver's advertised window, bytes (default 1 GiB: never the bottleneck). */
  readonly receiveWindow?: number;
  /** Record cwnd and ssthresh after every change (stats().cwnd); off by default (one sample per ACK). */
  readonly recordCwnd?: boolean;
  /**
   * SACK blocks in the receiver's ACKs and RFC 6675 loss recovery at the
   * sender. Default on, as in every TCP the model stands for: without it a
   * burst of losses (CUBIC's convex probing, slow start's overshoot) ends in
   * a timeout, as RFC 6582 recovery does (bench/tcp-models.ts). false gives
   * NewReno's recovery with partial ACKs.
   */
  readonly sack?: boolean;
  /** Slow start: 'hystart-linux' (CUBIC's default: Linux's HyStart), 'standard' (NewReno's default: RFC 5681) or 'hystart++' (RFC 9406). */
  readonly slowStart?: SlowStartKind;
  /** Proportional Rate Reduction (RFC 6937) in SACK recovery (default true; false: RFC 6675's cwnd = ssthresh). */
  readonly prr?: boolean;
  /** RACK-TLP (RFC 8985) loss detection and tail loss probes in SACK recovery (default true; false: RFC 6675's DupThresh). */
  readonly rackTlp?: boolean;
}

/** One finished (or unfinished) transfer of a flow: a connection and its data. */
export interface TcpTransfer {
  readonly connection: number;
  readonly bytes: number;
  readonly startMs: number;
  /** When the sender had every byte acknowledged; undefined while it has not. */
  readonly endMs: number | undefined;
}

export interface TcpFlowStats {
  readonly cc: TcpCcName;
  readonly connectionsOpened: number;
  readonly connectionsCompleted: number;
  /** Payload bytes sent, retransmissions included. */
  readonly bytesSent: number;
  /** Payload bytes cumulatively acknowledged to the senders. */
  readonly bytesAcked: number;
  /** Payload bytes delivered in order at the receivers. */
  readonly bytesDelivered: number;
  readonly segmentsSent: number;
  readonly retransmits: number;
  readonly fastRetransmits: number;
  /** Retransmission-timer expiries. */
  readonly timeouts: number;
  /** Tail loss probes sent (RFC 8985 7). */
  readonly lossProbes: number;
  /** Datagrams either end could not read as segments. */
  readonly malformed: number;
  readonly transfers: readonly TcpTransfer[];
  /** cwnd and ssthresh after every change, in time order (only with recordCwnd). */
  readonly cwnd: readonly CwndSample[];
}

export interface TcpFlow extends Flow {
  stats(): TcpFlowStats;
}

export interface TcpFlowFactory extends FlowFactory {
  create(sender: EndpointContext, receiver: EndpointContext, options: FlowOptions): TcpFlow;
}

/** Throws a RangeError naming the first bad option (the factories call it, so a bad flow fails when it is declared). */
export function checkTcpFlowOptions(options: TcpFlowOptions): void {
  if (options.cc !== 'newreno' && options.cc !== 'cubic') throw new RangeError(`tcp congestion control must be "newreno" or "cubic", got ${JSON.stringify(options.cc)}`);
  const mss = options.mss ?? 1448;
  if (!Number.isInteger(mss) || mss < 1 || mss > 65511) throw new RangeError(`mss must be a whole number of bytes in [1, 65511], got ${mss}`);
  const iw = options.initialWindow ?? 10;
  if (!Number.isInteger(iw) || iw < 1) throw new RangeError(`initialWindow must be a whole number of segments >= 1, got ${iw}`);
  const abc = options.abcLimit ?? 2;
  if (!(abc >= 1) || !Number.isFinite(abc)) throw new RangeError(`abcLimit must be a number >= 1, got ${abc}`);
  const delack = options.delayedAckMs ?? 40;
  if (!(delack >= 0) || !Number.isFinite(delack)) throw new RangeError(`delayedAckMs must be a finite number of ms >= 0, got ${delack}`);
  const rwnd = options.receiveWindow ?? 2 ** 30;
  if (!Number.isInteger(rwnd) || rwnd < 1 || rwnd > 2 ** 32 - 1) throw new RangeError(`receiveWindow must be a whole number of bytes in [1, 2^32 - 1], got ${rwnd}`);
  new RtoEstimator(options.rto);
  checkSlowStartKind(options.slowStart);
}

/** Both ends of a flow's connections, and the statistics over them. */
export class TcpFlowEnds {
  readonly sending: TcpSendingEndpoint;
  readonly receiving: TcpReceivingEndpoint;
  private readonly startTimes = new Map<number, number>();
  private readonly endTimes = new Map<number, number>();
  private readonly sizes = new Map<number, number>();

  constructor(readonly sender: EndpointContext, receiver: EndpointContext, readonly options: TcpFlowOptions) {
    this.sending = new TcpSendingEndpoint(sender, { cc: options.cc, mss: options.mss, initialWindow: options.initialWindow, abcLimit: options.abcLimit, rto: options.rto, recordCwnd: options.recordCwnd, sack: options.sack ?? true, slowStart: options.slowStart, prr: options.prr, rackTlp: options.rackTlp });
    this.receiving = new TcpReceivingEndpoint(receiver, { mss: options.mss, delayedAckMs: options.delayedAckMs, receiveWindow: options.receiveWindow, sack: options.sack ?? true });
  }

  open(totalBytes: number, onComplete?: () => void) {
    const startMs = this.sender.now();
    const connection = this.sending.open(totalBytes, (s) => {
      this.endTimes.set(s.connection, this.sender.now());
      onComplete?.();
    });
    this.startTimes.set(connection.connection, startMs);
    this.sizes.set(connection.connection, totalBytes);
    return connection;
  }

  close(): void {
    this.sending.close();
    this.receiving.close();
  }

  stats(): TcpFlowStats {
    let bytesSent = 0;
    let bytesAcked = 0;
    let segmentsSent = 0;
    let retransmits = 0;
    let fastRetransmits = 0;
    let timeouts = 0;
    let lossProbes = 0;
    let completed = 0;
    const cwnd: CwndSample[] = [];
    const transfers: TcpTransfer[] = [];
    for (const sender of this.sending.connections.values()) {
      const s = sender.stats;
      bytesSent += s.bytesSent;
      bytesAcked += s.bytesAcked;
      segmentsSent += s.segmentsSent;
      retransmits += s.retransmits;
      fastRetransmits += s.fastRetransmits;
      timeouts += s.timeouts;
      lossProbes += s.lossProbes;
      if (sender.isComplete()) completed++;
      for (const sample of sender.cwndLog) cwnd.push(sample);
      transfers.push({ connection: sender.connection, bytes: this.sizes.get(sender.connection)!, startMs: this.startTimes.get(sender.connection)!, endMs: this.endTimes.get(sender.connection) });
    }
    let bytesDelivered = 0;
    for (const receiver of this.receiving.connections.values()) bytesDelivered += receiver.stats.bytesDelivered;
    if (this.sending.connections.size > 1) cwnd.sort((a, b) => a.timeMs - b.timeMs || a.connection - b.connection);
    return {
      cc: this.options.cc,
      connectionsOpened: this.sending.connections.size,
      connectionsCompleted: completed,
      bytesSent,
      bytesAcked,
      bytesDelivered,
      segmentsSent,
      retransmits,
      fastRetransmits,
      timeouts,
      lossProbes,
      malformed: this.sending.counters.malformed + this.receiving.counters.malformed,
      transfers,
      cwnd,
    };
  }
}
