// The Salsify receiver: reassembles frames from fragments, checks each frame's
// checksum, decodes it through the codec from the state it names, shows it,
// and acknowledges every new datagram with its inter-arrival estimate (Sprout
// EWMA with the grace period, in whole microseconds, 0 after the first
// datagram, as the reference receiver reports it), its state and the states
// it holds.
//
// Loss is handled as the reference receiver handled it (alfalfa
// src/salsify/salsify-receiver.cc lines 223-243 and 261-310, with its own VP8
// decoder's error concealment switched on at line 192), when the codec can
// conceal (FunctionalCodec.conceal: the model codec, and the VP8 codec on a
// libvpx built with error concealment) and `conceal` is not false:
// - a datagram of a later frame ends an incomplete frame: what arrived of it,
//   its fragments up to the first missing one (alfalfa's partial_frame()), is
//   decoded with concealment from the decoder's current state and shown;
//   nothing is decoded when its first fragment is missing;
// - a complete frame whose source state the receiver does not hold is
//   decoded from the decoder's current state anyway, and shown (alfalfa
//   decodes every complete frame, loading the source state when it has it);
// - a state reached that way is damaged: acknowledgements report its id (the
//   sender knows no such state, so it sees the loss), and it is never held
//   for the sender to refer to.
// Without concealment an incomplete frame is abandoned and a frame whose
// source is not held is dropped: nothing is shown until a frame that decodes
// exactly arrives.
//
// - One frame is assembled at a time: datagrams of a later frame end an
//   incomplete one (concealed or abandoned, above); datagrams of earlier (or already complete) frames are
//   stale and ignored, duplicates likewise.
// - A complete frame is accepted when the state it was encoded from is the
//   receiver's state, a state it holds, or the initial state (a key frame);
//   the receiver's state then becomes the frame's target state, which is what
//   acknowledgements report from that moment (decoding follows in order).
// - Held states: the decoded states from the source state of the frame
//   decoded last on (as the reference receiver keeps them: the sender never
//   refers to an older one, since the states it encodes from advance with the
//   frame numbers), at most `stateMemory` of them (oldest dropped first);
//   acknowledgements report the newest MAX_HELD_STATES. While the sender is
//   conservative after a loss it encodes every frame from a state the
//   receiver reported an RTT before, so the receiver then holds about the
//   frames of an RTT. Everything the receiver keeps is bounded: one frame in
//   assembly, at most `maxDecodeQueue` frames (`maxDecodeQueueBytes` bytes)
//   waiting to decode, `stateMemory` states.
import type { CodecState, FunctionalCodec, Picture } from '../codec-bridge/types.ts';
import type { EndpointContext } from '../net/endpoint.ts';
import { InterArrivalEstimator } from '../sprout/interarrival-estimator.ts';
import { crc32 } from './crc32.ts';
import { DatagramError, decodeDatagram, encodeAck, MAX_HELD_STATES, NO_ESTIMATE, type FragmentDatagram } from './datagram.ts';
import { StateStore } from './state-store.ts';
import { modelledDecodeMsForFrame } from './timing-model.ts';

export interface ShownFrame {
  readonly frameNumber: number;
  /** Time the decoded picture was ready (ms). */
  readonly shownAt: number;
  readonly picture: Picture;
  /** The compressed frame (for a concealed one, what arrived of it). */
  readonly frame: Uint8Array;
  /** Decoded with concealment: from an incomplete frame, or from a state other than the frame's source. */
  readonly concealed: boolean;
  /** The decoder's state after this frame (damaged when concealed). */
  readonly state: CodecState;
  /** The state it was decoded from: its source, or when concealed the decoder's state at the time. */
  readonly fromStateId: string;
  /** The whole frame's length (more than `frame`'s when some of it was missing). */
  readonly frameLength: number;
  readonly sourceStateId: string;
  readonly targetStateId: string;
}

export interface ReceiverOptions {
  readonly ctx: EndpointContext;
  readonly codec: FunctionalCodec;
  readonly connectionId: number;
  /** Use the grace period in the inter-arrival estimate (default true). */
  readonly grace?: boolean;
  readonly alpha?: number;
  /** Decoded states kept at most (default 64, at most 1024; a 720p VP8 state holds up to three 1.4 MB pictures). */
  readonly stateMemory?: number;
  /**
   * Complete frames allowed to wait for the decoder (default 1024), and their
   * total size (default 32 MiB). After an outage a link may deliver a long
   * backlog at once; dropping any of it would break the chain of states.
   */
  readonly maxDecodeQueue?: number;
  readonly maxDecodeQueueBytes?: number;
  /** Modelled time of one decode (default: timing-model.ts). */
  readonly decodeMs?: (width: number, height: number, frame: Uint8Array) => number;
  /** Decode incomplete frames and frames from states not held with concealment, as alfalfa did, when the codec can (default true). */
  readonly conceal?: boolean;
  readonly onShown?: (shown: ShownFrame) => void;
  /** Every fragment of this connection as it arrives (duplicates and stale ones too), with the arrival time: for records. */
  readonly onFragment?: (fragment: FragmentDatagram, at: number) => void;
}

export interface ReceiverCounters {
  datagrams: number;
  badDatagrams: number;
  foreignDatagrams: number;
  unexpectedDatagrams: number;
  duplicateDatagrams: number;
  staleDatagrams: number;
  framesCompleted: number;
  framesAbandoned: number;
  corruptFrames: number;
  missingReference: number;
  decodeQueueOverflow: number;
  decodeFailures: number;
  droppedAfterFailure: number;
  framesShown: number;
  acksSent: number;
  /** 1 when the receiver conceals (the codec can and it was not switched off), else 0. */
  concealment: number;
  /** Incomplete frames decoded with concealment (their first fragment had arrived). */
  framesConcealed: number;
  /** Complete frames decoded from the current state because their source state was not held. */
  framesOnOtherState: number;
  /** Concealed decodes that failed (e.g. the frame header itself was cut short). */
  concealFailures: number;
}

interface Assembly {
  readonly first: FragmentDatagram;
  readonly pieces: (Uint8Array | undefined)[];
  received: number;
}

interface PendingDecode {
  readonly header: FragmentDatagram;
  readonly frame: Uint8Array;
  /** 'exact': from the frame's source state; 'conceal': from the decoder's current state, concealing. */
  readonly mode: 'exact' | 'conceal';
  readonly seq: number;
}

export class SalsifyReceiver {
  readonly #o: ReceiverOptions;
  readonly #ctx: EndpointContext;
  readonly #estimator: InterArrivalEstimator;
  readonly #decoded: StateStore;
  readonly #initials = new Map<string, CodecState>();
  readonly #queue: PendingDecode[] = [];
  readonly counters: ReceiverCounters = {
    datagrams: 0, badDatagrams: 0, foreignDatagrams: 0, unexpectedDatagrams: 0, duplicateDatagrams: 0, staleDatagrams: 0,
    framesCompleted: 0, framesAbandoned: 0, corruptFrames: 0, missingReference: 0, decodeQueueOverflow: 0,
    decodeFailures: 0, droppedAfterFailure: 0, framesShown: 0, acksSent: 0,
    concealment: 0, framesConcealed: 0, framesOnOtherState: 0, concealFailures: 0,
  };
  #assembly: Assembly | undefined;
  /** Frames numbered at or below this are finished with (completed or abandoned). */
  #done = -1;
  /** The state the receiver will be in once its decode queue is empty. */
  #stateId: string | undefined;
  /** The state of the last successful decode. */
  #decodedId: string | undefined;
  /** The decoder's state after the last successful decode (exact or concealed). */
  #current: CodecState | undefined;
  #jobsQueued = 0;
  #queueBytes = 0;
  #decoding = false;
  #failure: Error | undefined;

  constructor(options: ReceiverOptions) {
    this.#o = options;
    this.#ctx = options.ctx;
    const memory = options.stateMemory ?? 64;
    if (!(Number.isInteger(memory) && memory >= 1 && memory <= 1024)) throw new RangeError(`receiver state memory must be an integer in 1..1024, got ${memory}`);
    this.#decoded = new StateStore(memory);
    this.#estimator = new InterArrivalEstimator({ alpha: options.alpha, grace: options.grace });
    if (options.conceal !== false && options.codec.conceal) this.counters.concealment = 1;
    options.ctx.onReceive((bytes) => this.#onDatagram(bytes));
  }

  get interArrivalMs(): number | undefined {
    return this.#estimator.estimateMs;
  }

  /** The receiver's state id as acknowledgements report it. */
  get stateId(): string | undefined {
    return this.#stateId;
  }

  /** States held for the sender to refer to (bounded by stateMemory). */
  get heldStates(): number {
    return this.#decoded.size;
  }

  get decodeQueueLength(): number {
    return this.#queue.length;
  }

  /** An unexpected failure in the decode loop (a bug, not bad input), if any. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  #initial(width: number, height: number): CodecState {
    const key = `${width}x${height}`;
    let s = this.#initials.get(key);
    if (!s) {
      s = this.#o.codec.initialState(width, height);
      this.#initials.set(key, s);
      if (this.#initials.size > 4) this.#initials.delete(this.#initials.keys().next().value as string);
    }
    return s;
  }

  #onDatagram(bytes: Uint8Array): void {
    let d: FragmentDatagram;
    try {
      const decoded = decodeDatagram(bytes);
      if (decoded.type !== 'fragment') {
        this.counters.unexpectedDatagrams++;
        return;
      }
      d = decoded;
    } catch (error) {
      if (!(error instanceof DatagramError)) throw error;
      this.counters.badDatagrams++;
      return;
    }
    if (d.connectionId !== this.#o.connectionId) {
      this.counters.foreignDatagrams++;
      return;
    }
    this.#o.onFragment?.(d, this.#ctx.now());
    if (d.frameNumber <= this.#done) {
      this.counters.staleDatagrams++;
      return;
    }
    const a = this.#assembly;
    if (a && d.frameNumber < a.first.frameNumber) {
      this.counters.staleDatagrams++;
      return;
    }
    if (a && d.frameNumber === a.first.frameNumber) {
      if (!sameFrame(a.first, d)) {
        // Fragments of one frame that disagree on the frame's description: not
        // both can be right; keep the first and ignore this one.
        this.counters.badDatagrams++;
        return;
      }
      if (a.pieces[d.fragmentIndex]) {
        this.counters.duplicateDatagrams++;
        return;
      }
    }
    this.counters.datagrams++;
    this.#estimator.observe({ at: this.#ctx.now(), graceMs: d.timeSincePreviousFrameUs / 1000 });
    if (this.#stateId === undefined) this.#stateId = this.#initial(d.width, d.height).id;

    let assembly = a && a.first.frameNumber === d.frameNumber ? a : undefined;
    if (!assembly) {
      if (a) this.#endIncomplete(a);
      assembly = { first: d, pieces: new Array(d.fragmentCount), received: 0 };
      this.#assembly = assembly;
    }
    assembly.pieces[d.fragmentIndex] = d.payload;
    assembly.received++;
    if (assembly.received === d.fragmentCount) this.#complete(assembly);
    this.#acknowledge(d);
  }

  /** A datagram of a later frame arrived: conceal what arrived of this one (alfalfa's partial_frame), or abandon it. */
  #endIncomplete(a: Assembly): void {
    this.#done = Math.max(this.#done, a.first.frameNumber);
    let length = 0;
    for (const piece of a.pieces) {
      if (!piece) break;
      length += piece.length;
    }
    if (this.counters.concealment === 0 || length === 0) {
      this.counters.framesAbandoned++;
      return;
    }
    const prefix = new Uint8Array(length);
    let offset = 0;
    for (const piece of a.pieces) {
      if (!piece) break;
      prefix.set(piece, offset);
      offset += piece.length;
    }
    this.counters.framesConcealed++;
    this.#enqueue({ header: a.first, frame: prefix, mode: 'conceal' });
  }

  #enqueue(job: Omit<PendingDecode, 'seq'>): boolean {
    if (this.#queue.length >= (this.#o.maxDecodeQueue ?? 1024) || this.#queueBytes + job.frame.length > (this.#o.maxDecodeQueueBytes ?? 32 * 1024 * 1024)) {
      this.counters.decodeQueueOverflow++;
      return false;
    }
    this.#queue.push({ ...job, seq: ++this.#jobsQueued });
    this.#queueBytes += job.frame.length;
    this.#pump();
    return true;
  }

  #complete(assembly: Assembly): void {
    this.#assembly = undefined;
    const h = assembly.first;
    this.#done = h.frameNumber;
    const frame = new Uint8Array(h.frameLength);
    let offset = 0;
    for (const piece of assembly.pieces) {
      frame.set(piece!, offset);
      offset += piece!.length;
    }
    if (crc32(frame) !== h.frameChecksum) {
      this.counters.corruptFrames++;
      return;
    }
    this.counters.framesCompleted++;
    const src = h.sourceStateId;
    const reachable = src === this.#stateId || this.#decoded.has(src) || src === this.#initial(h.width, h.height).id;
    if (!reachable) {
      this.counters.missingReference++;
      if (this.counters.concealment === 0) return;
      this.counters.framesOnOtherState++;
      this.#enqueue({ header: h, frame, mode: 'conceal' });
      return;
    }
    // The state is set before the decode is queued: #enqueue may start it at once.
    const previous = this.#stateId;
    this.#stateId = h.targetStateId;
    if (!this.#enqueue({ header: h, frame, mode: 'exact' })) this.#stateId = previous;
  }

  #acknowledge(d: FragmentDatagram): void {
    const held = this.#decoded.idsNewestFirst();
    const estimate = this.#estimator.estimateMs;
    // Whole microseconds, truncated, as the reference receiver reports it (0 after the first datagram).
    const interArrivalUs = estimate === undefined ? NO_ESTIMATE : Math.min(NO_ESTIMATE - 1, Math.floor(estimate * 1000 + 1e-6));
    this.#ctx.send(encodeAck({
      connectionId: this.#o.connectionId, frameNumber: d.frameNumber, fragmentIndex: d.fragmentIndex,
      interArrivalUs, currentStateId: this.#stateId!, heldStateIds: held.slice(0, MAX_HELD_STATES),
    }));
    this.counters.acksSent++;
  }

  #pump(): void {
    if (this.#decoding || this.#queue.length === 0) return;
    this.#decoding = true;
    const job = this.#queue.shift()!;
    this.#queueBytes -= job.frame.length;
    this.#decode(job).then(
      () => {
        this.#decoding = false;
        this.#pump();
      },
      (error: unknown) => {
        this.#decoding = false;
        this.#failure = error instanceof Error ? error : new Error(String(error));
      },
    );
  }

  async #decode(job: PendingDecode): Promise<void> {
    if (job.mode === 'conceal') return this.#decodeConcealed(job);
    const h = job.header;
    const initial = this.#initial(h.width, h.height);
    const from = h.sourceStateId === initial.id ? initial : this.#decoded.get(h.sourceStateId);
    if (!from) return this.#decodeFailed('missing', initial.id);
    const decodeMs = this.#o.decodeMs ?? modelledDecodeMsForFrame;
    let result;
    try {
      result = await this.#ctx.work(() => this.#o.codec.decode(from, job.frame), decodeMs(h.width, h.height, job.frame));
    } catch {
      return this.#decodeFailed('codec', initial.id);
    }
    if (result.state.id !== h.targetStateId) return this.#decodeFailed('mismatch', initial.id);
    this.#decoded.dropOlderThan(h.sourceStateId);
    this.#decoded.add(result.state);
    this.#decodedId = result.state.id;
    this.#current = result.state;
    this.#show(job, result.picture, from.id, result.state, false);
  }

  /** Decodes with concealment from the decoder's current state (alfalfa: the player's decoder, whatever it holds). */
  async #decodeConcealed(job: PendingDecode): Promise<void> {
    const h = job.header;
    const from = this.#current ?? this.#initial(h.width, h.height);
    const decodeMs = this.#o.decodeMs ?? modelledDecodeMsForFrame;
    let result;
    try {
      result = await this.#ctx.work(() => this.#o.codec.conceal!(from, job.frame, h.frameLength), decodeMs(h.width, h.height, job.frame));
    } catch {
      this.counters.concealFailures++;
      return;
    }
    this.#current = result.state;
    this.#decodedId = result.state.id;
    // Acknowledgements report the damaged state, unless a frame queued since has set the state to come.
    if (job.seq === this.#jobsQueued) this.#stateId = result.state.id;
    const exact = !result.concealed && result.state.id === h.targetStateId;
    if (exact) this.#decoded.add(result.state);
    this.#show(job, result.picture, from.id, result.state, !exact);
  }

  #show(job: PendingDecode, picture: Picture, fromStateId: string, state: CodecState, concealed: boolean): void {
    const h = job.header;
    this.counters.framesShown++;
    this.#o.onShown?.({
      frameNumber: h.frameNumber, shownAt: this.#ctx.now(), picture, frame: job.frame, concealed, state, fromStateId,
      frameLength: h.frameLength, sourceStateId: h.sourceStateId, targetStateId: h.targetStateId,
    });
  }

  /** A frame that passed every check still failed to decode: drop it and what was queued after it. */
  #decodeFailed(why: 'missing' | 'codec' | 'mismatch', initialId: string): void {
    if (why === 'missing') this.counters.missingReference++;
    else this.counters.decodeFailures++;
    this.counters.droppedAfterFailure += this.#queue.length;
    this.#queue.length = 0;
    this.#queueBytes = 0;
    this.#stateId = this.#decodedId ?? initialId;
  }
}

function sameFrame(a: FragmentDatagram, b: FragmentDatagram): boolean {
  return a.fragmentCount === b.fragmentCount && a.frameLength === b.frameLength && a.frameChecksum === b.frameChecksum
    && a.sourceStateId === b.sourceStateId && a.targetStateId === b.targetStateId && a.width === b.width && a.height === b.height;
}
