// SCReAM (RFC 8298) as a window-based controller of the media flow: the
// sender's congestion window and media rate (scream-tx.ts, media-rate.ts,
// as EricssonResearch/scream's ScreamTx runs them) put to work over our
// transport-wide feedback.
//
// The flow's send queue plays the reference's RTP queue: the source
// produces at the target (targetRateScale x targetBitrate, what the
// reference asks its encoder for) every pacing interval (a "frame"), and a
// packet leaves when ScreamTx's isOkToTransmit says so. Each feedback report
// becomes SCReAM feedback: the highest sequence number received, the 64-bit
// vector of the 64 numbers before it, and its arrival time in ms; a report
// covering more than 65 numbers is given as several, each at most 65 above
// the previous, so that no received packet falls outside an ack vector.
import type { FeedbackReport, RateControllerModule, RateControllerOptions, SendQueue, WindowedRateController } from '../controller.ts';
import { ScreamTx, type ScreamParameters } from './scream-tx.ts';
import type { SendQueueView } from './send-queue-view.ts';

/** Every call the controller makes on ScreamTx, with the queue as it was (for scream-log.ts). */
export type ScreamCall =
  | { readonly kind: 'frame'; readonly nowUs: number; readonly bytes: number }
  | { readonly kind: 'ok'; readonly nowUs: number }
  | { readonly kind: 'sent'; readonly nowUs: number; readonly size: number; readonly seqNr: number }
  | { readonly kind: 'feedback'; readonly nowUs: number; readonly timestampMs: number; readonly highestSeqNr: number; readonly ackVector: bigint };

export interface QueueState {
  readonly bytes: number;
  readonly packets: number;
  readonly sizeOfNext: number;
  /** When the head packet was produced, µs (-1 when none waits). */
  readonly headProducedUs: number;
  readonly lastFrameBytes: number;
}

export interface ScreamController extends WindowedRateController {
  readonly tx: ScreamTx;
}

export const name = 'scream';

const ACK_VECTOR_BITS = 64;
/**
 * The 16-bit sequence number ScreamTx sees: ours plus one. ScreamTx starts
 * with the highest acknowledged number at 0, so a packet numbered 0 is never
 * covered by feedback; it stays in its list until number 2048 takes its slot,
 * which ScreamTx reads as a collapse of throughput (window and target to the
 * minimum). RTP numbers start at random; we start at 1.
 */
const screamSeqNr = (sequence: number) => (sequence + 1) & 0xffff;
const toUs = (ms: number) => Math.round(ms * 1000);

/** A SendQueueView over whichever SendQueue the flow passed last. */
class QueueAdapter implements SendQueueView {
  current: SendQueue | undefined;
  bytes = () => this.current?.bytes() ?? 0;
  packets = () => this.current?.packets() ?? 0;
  sizeOfNext = () => this.current?.headSizeBytes() ?? -1;
  delaySeconds = (nowUs: number) => (this.current?.headWaitMs(nowUs / 1000) ?? 0) / 1000;
  lastFrameBytes = () => this.current?.lastFrameBytes() ?? 0;
  clear = () => this.current?.clear();
  state(nowUs: number): QueueState {
    const packets = this.packets();
    const headProducedUs = packets > 0 ? Math.round(nowUs - this.delaySeconds(nowUs) * 1e6) : -1;
    return { bytes: this.bytes(), packets, sizeOfNext: this.sizeOfNext(), headProducedUs, lastFrameBytes: this.lastFrameBytes() };
  }
}

export function createController(options: RateControllerOptions, parameters: Partial<ScreamParameters> = {}, trace?: (call: ScreamCall, queue: QueueState) => void): ScreamController {
  const queue = new QueueAdapter();
  const tx = new ScreamTx(queue, { minBitrate: options.minBitrate, startBitrate: options.initialBitrate, maxBitrate: options.maxBitrate }, parameters);
  const arrivals = new Map<number, number>();
  let highestAcked = -1;
  const record = (call: ScreamCall) => trace?.(call, queue.state(call.nowUs));

  const feedback = (nowUs: number, highest: number) => {
    let ackVector = 0n;
    for (let d = 0; d < ACK_VECTOR_BITS; d++) if (arrivals.has(highest - 1 - d)) ackVector |= 1n << BigInt(d);
    const call = { kind: 'feedback', nowUs, timestampMs: Math.floor(arrivals.get(highest)!) >>> 0, highestSeqNr: screamSeqNr(highest), ackVector } as const;
    record(call);
    tx.incomingFeedback(nowUs, call.timestampMs, call.highestSeqNr, ackVector);
    highestAcked = highest;
  };

  return {
    name,
    tx,
    targetBitrate: () => tx.stream.mediaBitrate(),
    onMediaProduced(bytes, nowMs, sendQueue) {
      queue.current = sendQueue;
      const nowUs = toUs(nowMs);
      record({ kind: 'frame', nowUs, bytes });
      tx.newMediaFrame(nowUs, bytes);
    },
    transmitDelayMs(nowMs, sendQueue) {
      queue.current = sendQueue;
      const nowUs = toUs(nowMs);
      record({ kind: 'ok', nowUs });
      const wait = tx.isOkToTransmit(nowUs);
      return wait < 0 ? undefined : wait * 1000;
    },
    onPacketSent(packet) {
      const nowUs = toUs(packet.sendTimeMs);
      const call = { kind: 'sent', nowUs, size: packet.sizeBytes, seqNr: screamSeqNr(packet.sequence) } as const;
      record(call);
      tx.addTransmitted(nowUs, call.size, call.seqNr);
    },
    onFeedback(report: FeedbackReport, nowMs: number) {
      const received = report.packets.filter((p) => p.arrivalTimeMs !== undefined && p.sequence > highestAcked).map((p) => p.sequence);
      for (const p of report.packets) if (p.arrivalTimeMs !== undefined) arrivals.set(p.sequence, p.arrivalTimeMs);
      const nowUs = toUs(nowMs);
      let candidate: number | undefined;
      for (const sequence of received) {
        if (candidate !== undefined && sequence - highestAcked > ACK_VECTOR_BITS + 1) feedback(nowUs, candidate);
        candidate = sequence;
      }
      if (candidate !== undefined && candidate > highestAcked) feedback(nowUs, candidate);
      for (const sequence of arrivals.keys()) if (sequence < highestAcked - 2 * ACK_VECTOR_BITS) arrivals.delete(sequence);
    },
  };
}

export const screamController: RateControllerModule = { name, createController: (options) => createController(options) };
