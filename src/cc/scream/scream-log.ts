// A SCReAM call log: every call our SCReAM controller made on its ScreamTx
// (scream.ts), with the send queue as it was, as text a native program
// reads as easily (the reference's test harness,
// test/reference-impl/scream/). Replaying it into a fresh ScreamTx, ours or
// the reference's, gives the state after every call, to compare step by
// step.
//
// Lines (integers; times µs):
//   O <min bit/s> <start bit/s> <max bit/s>                      first line
//   Q <bytes> <packets> <size of next|-1> <head produced|-1> <last frame bytes>   the queue from here on
//   M <now> <bytes>                                              newMediaFrame
//   K <now>                                                      isOkToTransmit
//   T <now> <size> <seq>                                         addTransmitted
//   A <now> <timestamp ms> <highest seq> <ack vector high 32> <ack vector low 32>   incomingFeedback
import type { RateControllerOptions } from '../controller.ts';
import { createController, type QueueState, type ScreamCall } from './scream.ts';
import { ScreamTx, type ScreamParameters } from './scream-tx.ts';
import type { SendQueueView } from './send-queue-view.ts';

/** Records the calls of a SCReAM controller as log lines. */
export class ScreamLogRecorder {
  readonly lines: string[];
  private lastQueue = '';

  constructor(options: RateControllerOptions) {
    this.lines = [`O ${Math.round(options.minBitrate)} ${Math.round(options.initialBitrate)} ${Math.round(options.maxBitrate)}`];
  }

  readonly record = (call: ScreamCall, queue: QueueState): void => {
    const q = `Q ${queue.bytes} ${queue.packets} ${queue.sizeOfNext} ${queue.headProducedUs} ${queue.lastFrameBytes}`;
    if (q !== this.lastQueue) this.lines.push(q);
    this.lastQueue = q;
    if (call.kind === 'frame') this.lines.push(`M ${call.nowUs} ${call.bytes}`);
    else if (call.kind === 'ok') this.lines.push(`K ${call.nowUs}`);
    else if (call.kind === 'sent') this.lines.push(`T ${call.nowUs} ${call.size} ${call.seqNr}`);
    else this.lines.push(`A ${call.nowUs} ${call.timestampMs} ${call.highestSeqNr} ${call.ackVector >> 32n} ${call.ackVector & 0xffffffffn}`);
  };

  text(): string {
    return this.lines.join('\n') + '\n';
  }
}

/** A recording SCReAM module: each controller it creates records into a recorder of its own (`recorders`, in creation order). */
export function recordingScream(recorders: ScreamLogRecorder[]) {
  return {
    name: 'scream',
    createController(options: RateControllerOptions) {
      const recorder = new ScreamLogRecorder(options);
      recorders.push(recorder);
      return createController(options, {}, recorder.record);
    },
  };
}

/** The sender's state after one call. */
export interface ScreamStep {
  readonly kind: 'M' | 'K' | 'T' | 'A';
  readonly nowUs: number;
  /** isOkToTransmit's and addTransmitted's result (s), 0 for the others. */
  readonly result: number;
  readonly targetBitrate: number;
  readonly targetRateScale: number;
  readonly cwnd: number;
  readonly bytesInFlight: number;
  readonly inFastStart: boolean;
  readonly lossEvents: number;
}

const f32 = Math.fround;

/**
 * The queue a replay shows ScreamTx: the last Q line, until ScreamTx clears
 * it. Its delay is computed as the reference's RtpQueue computes it, in
 * 32-bit floats of seconds (the harness's shim does the same), so that a
 * delay of exactly RTP_QDELAY_TH (our 5 ms production ticks make them)
 * falls on the same side of the threshold in both.
 */
class ReplayedQueue implements SendQueueView {
  state: QueueState = { bytes: 0, packets: 0, sizeOfNext: -1, headProducedUs: -1, lastFrameBytes: 0 };
  bytes = () => this.state.bytes;
  packets = () => this.state.packets;
  sizeOfNext = () => this.state.sizeOfNext;
  delaySeconds = (nowUs: number) => (this.state.headProducedUs < 0 ? 0 : f32(f32(f32(nowUs) * f32(1e-6)) - f32(f32(this.state.headProducedUs) * f32(1e-6))));
  lastFrameBytes = () => this.state.lastFrameBytes;
  clear = () => {
    this.state = { ...this.state, bytes: 0, packets: 0, sizeOfNext: -1, headProducedUs: -1 };
  };
}

/** Replays a log into a fresh ScreamTx of ours (with `parameters`); a malformed line throws naming `source` and the line number. */
export function replayScreamLog(text: string, source: string, parameters: Partial<ScreamParameters> = {}): ScreamStep[] {
  const queue = new ReplayedQueue();
  let tx: ScreamTx | undefined;
  const steps: ScreamStep[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    const [kind, ...fields] = line.trim().split(/\s+/);
    const n = fields.map(Number);
    const bad = () => new Error(`${source}:${i + 1}: not a SCReAM log line: ${JSON.stringify(line.slice(0, 80))}`);
    if (!n.every(Number.isInteger)) throw bad();
    const arity: Record<string, number> = { O: 3, Q: 5, M: 2, K: 1, T: 3, A: 5 };
    if (arity[kind!] !== n.length || (kind === 'O') !== (tx === undefined)) throw bad();
    if (kind === 'O') {
      tx = new ScreamTx(queue, { minBitrate: n[0]!, startBitrate: n[1]!, maxBitrate: n[2]! }, parameters);
      return;
    }
    if (kind === 'Q') {
      queue.state = { bytes: n[0]!, packets: n[1]!, sizeOfNext: n[2]!, headProducedUs: n[3]!, lastFrameBytes: n[4]! };
      return;
    }
    const s = tx!;
    let result = 0;
    if (kind === 'M') s.newMediaFrame(n[0]!, n[1]!);
    else if (kind === 'K') result = s.isOkToTransmit(n[0]!);
    else if (kind === 'T') result = s.addTransmitted(n[0]!, n[1]!, n[2]!);
    else s.incomingFeedback(n[0]!, n[1]!, n[2]!, (BigInt(n[3]!) << 32n) | BigInt(n[4]!));
    steps.push({ kind: kind as ScreamStep['kind'], nowUs: n[0]!, result, targetBitrate: s.stream.targetBitrate, targetRateScale: s.stream.targetRateScale, cwnd: s.cwnd, bytesInFlight: s.bytesInFlight, inFastStart: s.inFastStart, lossEvents: s.lossEvents });
  });
  return steps;
}
