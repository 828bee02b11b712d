// The Salsify sender, as the reference sender runs it (alfalfa
// src/salsify/salsify-sender.cc; the differences are listed below): it
// encodes camera frames as its scheme plans (schemes/: salsify-1 and
// salsify-2 encode twice, at a better and a clearly worse quality, from the
// same codec state, and send the larger encoding that fits the transport's
// target size, or skip the frame; conventional-1s encodes once at a quality
// adjusted once a second; ...). The sender keeps what every scheme shares: the
// frame clock, the states and loss recovery, the transport's target, pacing,
// fragmentation and acks. All timing goes through the EndpointContext;
// encodes through ctx.work with their modelled duration.
//
// Frame clock ('next-frame', the default: the reference's loop with a camera
// that hands over the frame it completes next): an encode starts when the
// previous one has finished and takes the next camera frame, waiting for it
// (the first one at start; when a source of `frames` frames has no next one,
// the newest one left). 'newest-frame' (an option): it takes the newest
// frame already captured, waiting only when that one was encoded already.
// 'single-buffer' (the paper's camera; --encode-timing paper's default): the
// reference's camera as the paper's runs used it (alfalfa d5f61c1,
// src/input/camera.cc, until 2723268 of 2019 "use multiple buffers"): one
// V4L2 buffer, and get_next_frame() queues it (VIDIOC_QBUF), copies the
// picture the buffer holds, which is the frame dequeued by the previous call,
// and then dequeues (VIDIOC_DQBUF: waits for the driver to fill the buffer
// with the next whole frame, one whose scan starts after the QBUF). So an
// encode starts on the camera's frame grid, when a frame completes, but
// encodes the frame that completed when the previous encode started: one
// encode cycle old. Here frame j (captured at j / fps) is scanned over the
// interval before it, so the buffer queued at time q takes the frame
// ceil(q x fps) + 1. The first call holds no frame yet (the reference's
// returns the empty buffer's contents); here it only fills the buffer.
// Frames captured but never encoded count as superseded.
//
// Target size (sprout/target-size.ts): computed once the encodings are done,
// 1400 x max(0, floor(100 ms / inter-arrival) - packets in flight), the
// newest acknowledged packet still counted in flight (sprout/in-flight.ts);
// unlimited (Infinity) before the first acknowledgement.
//
// Grace period: a frame's first fragment carries the time since the previous
// frame was handed to the pacer (since start for the first frame), the other
// fragments 0. The pacer spaces a frame's fragments by pacingGapUs() of the
// estimate when the frame is handed over (pacer.ts).
//
// Loss recovery: the sender keeps the states it sent, keyed by id (from the
// receiver's latest reported state on, at most `stateMemory` of them). Each
// acknowledgement names the receiver's state (the state it will be in once it
// has decoded every complete frame it accepted) and the states it holds
// (decoded, newest first). A receiver that acknowledges frame f must hold the
// state f was encoded from, or a later one of the chain; when it does not (or
// reports a state the sender never made), a frame was lost: the sender is then
// conservative for `conservativeMs` (default 5 s, the reference's): every
// frame is encoded from the newest state the receiver reports (its current
// one, else the newest it holds that the sender still has, else the initial
// state: a key frame), without any cut of the target (an option halves it,
// as this sender used to). A loss seen while
// conservative does not prolong the period. The reference detects the loss
// when the receiver reports a state the sender does not know, which is what
// its receiver does after decoding an incomplete frame with error concealment
// or a frame on the wrong state; this receiver abandons an incomplete frame
// and never decodes on a wrong state, so it stays in a known state and the
// check above is the same event seen one step earlier.
import type { CodecState, EncodeResult, FunctionalCodec, Picture } from '../codec-bridge/types.ts';
import type { VideoSource } from '../codec-bridge/video/video-source.ts';
import type { EndpointContext } from '../net/endpoint.ts';
import { InFlightCounter } from '../sprout/in-flight.ts';
import { DEFAULT_DELAY_BUDGET_MS, targetFrameSize } from '../sprout/target-size.ts';
import { DEFAULT_MAX_SKIPS } from './choose-encoding.ts';
import { crc32 } from './crc32.ts';
import { DatagramError, decodeDatagram, encodeFragment, MAX_FRAGMENT_PAYLOAD, NO_ESTIMATE, REFERENCE_FRAGMENT_PAYLOAD, splitFrame, type AckDatagram } from './datagram.ts';
import { Pacer, pacingGapUs } from './pacer.ts';
import { BETTER_STEP, clampQuantizer, WORSE_STEP } from './quantizer.ts';
import { createScheme, SCHEME_NAMES, type SchemeName } from './schemes/registry.ts';
import type { EncodingLabel, EncodingPlan, SchemeView, SenderScheme } from './schemes/scheme.ts';
import { StateStore } from './state-store.ts';
import { modelledEncodeMs } from './timing-model.ts';

/** A scheme's name (the registry in schemes/registry.ts lists them). */
export type Scheme = SchemeName;
export const SCHEMES: readonly Scheme[] = SCHEME_NAMES;

/** Which camera frame an encode takes (see the top of this file). */
export type FrameClock = 'next-frame' | 'newest-frame' | 'single-buffer';
export const FRAME_CLOCKS: readonly FrameClock[] = ['next-frame', 'newest-frame', 'single-buffer'];

/** How long the sender stays conservative after a loss (ms): the reference's 5 s. */
export const DEFAULT_CONSERVATIVE_MS = 5000;

export interface SenderOptions {
  readonly ctx: EndpointContext;
  readonly codec: FunctionalCodec;
  readonly source: VideoSource;
  /** A scheme's name, or a scheme built outside the registry (a test's, an experiment's). */
  readonly scheme: Scheme | SenderScheme;
  readonly connectionId: number;
  /** Source frames to capture (default: until stop()). */
  readonly frames?: number;
  readonly budgetMs?: number;
  /** Which camera frame an encode takes (default 'next-frame'; 'single-buffer': the camera of the paper's runs). */
  readonly frameClock?: FrameClock;
  /** The quantizer before the first frame (default 64). */
  readonly initialQuantizer?: number;
  /** Given to a named scheme's factory (schemes/scheme.ts SchemeParams; defaults in quantizer.ts, choose-encoding.ts). */
  readonly betterStep?: number;
  readonly worseStep?: number;
  readonly maxSkips?: number;
  /** Frame bytes per datagram, and the target's bytes per packet (default 1400, the reference's; at most MAX_FRAGMENT_PAYLOAD). */
  readonly maxPayload?: number;
  /**
   * At most this many states are kept for loss recovery (default 128). States
   * older than the receiver's latest reported state are dropped at once (the
   * sender never needs them), so in practice the store holds about the frames
   * in flight; the cap matters only behind a long queue. A 720p VP8 state
   * holds up to three 1.4 MB reference pictures.
   */
  readonly stateMemory?: number;
  /** How long the sender stays conservative after a loss (ms, default 5000, the reference's). */
  readonly conservativeMs?: number;
  /**
   * The target while conservative: 'whole' (default, the reference's) or
   * 'halved' (this sender's earlier variant: half the target, which drains
   * the queue behind a loss sooner at the cost of quality).
   */
  readonly conservativeTarget?: 'whole' | 'halved';
  /** Modelled time of one encoding (default: timing-model.ts). */
  readonly encodeMs?: (width: number, height: number, quantizer: number, keyFrame: boolean) => number;
  /**
   * Run the encodings of a serial plan (salsify-1's) concurrently too
   * (default: only a parallel plan's). For simulations, where the modelled
   * time (the sum for a serial plan) is what counts and the real time is only
   * the simulation's cost.
   */
  readonly concurrentEncodes?: boolean;
  /** Receives every event (captures, frames sent, skips, losses detected). */
  readonly log?: (event: SenderEvent) => void;
}

export type SenderEvent =
  | { kind: 'capture'; time: number; sourceIndex: number }
  | {
      kind: 'sent';
      time: number;
      sourceIndex: number;
      frameNumber: number;
      bytes: number;
      fragments: number;
      quantizer: number;
      keyFrame: boolean;
      /** Which of the plan's encodings was sent (schemes/scheme.ts EncodingLabel). */
      choice: EncodingLabel;
      /** The target size the choice saw (Infinity before the first acknowledgement). */
      targetBytes: number;
      sourceStateId: string;
      targetStateId: string;
      encodeMs: number;
    }
  | {
      kind: 'skip'; time: number; sourceIndex: number; targetBytes: number;
      /** The first and second encodings' sizes (the first twice for a one-encoding plan). */
      betterBytes: number; worseBytes: number;
      /** Every encoding's size, in the plan's order. */
      sizes: number[];
    }
  | { kind: 'loss'; time: number; ackFrame: number; receiverStateId: string }
  | { kind: 'recovery'; time: number; frameNumber: number; fromStateId: string; keyFrame: boolean };

export interface SenderCounters {
  captured: number;
  encoded: number;
  sent: number;
  skipped: number;
  superseded: number;
  datagramsSent: number;
  bytesSent: number;
  acks: number;
  badDatagrams: number;
  foreignDatagrams: number;
  unexpectedDatagrams: number;
  lossesDetected: number;
  keyFrames: number;
}

interface SentFrameRecord {
  readonly sourceStateId: string;
  readonly targetStateId: string;
  /** The quantizer of the frame, which its target state carries on as its encoder's last one. */
  readonly quantizer: number;
}

export class SalsifySender {
  readonly #o: SenderOptions;
  readonly #ctx: EndpointContext;
  readonly #pacer: Pacer;
  readonly #inFlight = new InFlightCounter();
  readonly #states: StateStore;
  readonly #initial: CodecState;
  readonly #frameInterval: number;
  readonly #frameClock: FrameClock;
  readonly #maxPayload: number;
  readonly #scheme: SenderScheme;
  readonly #sentFrames = new Map<number, SentFrameRecord>();
  readonly #frameOfState = new Map<string, number>();
  readonly counters: SenderCounters = {
    captured: 0, encoded: 0, sent: 0, skipped: 0, superseded: 0, datagramsSent: 0, bytesSent: 0,
    acks: 0, badDatagrams: 0, foreignDatagrams: 0, unexpectedDatagrams: 0, lossesDetected: 0, keyFrames: 0,
  };

  #startTime = 0;
  #stopped = false;
  /** The newest frame captured. */
  #newest = -1;
  #lastEncoded = -1;
  /** next-frame clock: the frame the next encode takes; single-buffer clock: the frame the camera's buffer is being filled with. */
  #nextWanted = 0;
  /** single-buffer clock: the frame the camera's buffer holds (dequeued by the previous grab), if any. */
  #held: number | undefined;
  #busy = false;
  #current: CodecState;
  #lastQuantizer: number;
  #skipsInARow = 0;
  #nextFrameNumber = 0;
  #interArrivalUs: number | undefined;
  #latestAck: { frame: number; fragment: number } | undefined;
  /** What the receiver reported last: its state and the states it holds. */
  #report: { receiverStateId: string; held: readonly string[] } | undefined;
  /** A loss was seen and no frame has been sent since. */
  #recovering = false;
  #chainStartFrame = 0;
  #conservativeUntil = -Infinity;
  /** When the previous frame was handed to the pacer (the start before any). */
  #lastHandoff = 0;
  #failure: Error | undefined;

  constructor(options: SenderOptions) {
    this.#o = options;
    this.#ctx = options.ctx;
    const { source, scheme } = options;
    if (!(source.fps > 0)) throw new RangeError(`video source ${source.description} has frame rate ${source.fps}`);
    if (!(Number.isInteger(options.connectionId) && options.connectionId >= 0 && options.connectionId <= 0xffffffff)) {
      throw new RangeError(`connection id must be a 32-bit unsigned integer, got ${options.connectionId}`);
    }
    const maxPayload = options.maxPayload ?? REFERENCE_FRAGMENT_PAYLOAD;
    if (!(Number.isInteger(maxPayload) && maxPayload > 0 && maxPayload <= MAX_FRAGMENT_PAYLOAD)) {
      throw new RangeError(`max payload must be an integer in 1..${MAX_FRAGMENT_PAYLOAD}, got ${maxPayload}`);
    }
    if (options.frames !== undefined && !(Number.isInteger(options.frames) && options.frames >= 0)) throw new RangeError(`frames must be an integer >= 0, got ${options.frames}`);
    const iq = options.initialQuantizer ?? 64;
    if (clampQuantizer(iq) !== iq) throw new RangeError(`initial quantizer must be an integer in 0..127, got ${iq}`);
    const clock = options.frameClock ?? 'next-frame';
    if (!FRAME_CLOCKS.includes(clock)) throw new RangeError(`frame clock must be one of ${FRAME_CLOCKS.join(', ')}, got ${JSON.stringify(clock)}`);
    const conservativeMs = options.conservativeMs ?? DEFAULT_CONSERVATIVE_MS;
    if (!(conservativeMs >= 0 && Number.isFinite(conservativeMs))) throw new RangeError(`conservative period must be a finite number >= 0 ms, got ${conservativeMs}`);
    this.#frameClock = clock;
    this.#maxPayload = maxPayload;
    this.#frameInterval = 1000 / source.fps;
    this.#scheme = typeof scheme === 'string'
      ? createScheme(scheme, {
          initialQuantizer: iq, betterStep: options.betterStep ?? BETTER_STEP, worseStep: options.worseStep ?? WORSE_STEP,
          maxSkips: options.maxSkips ?? DEFAULT_MAX_SKIPS, frameIntervalMs: this.#frameInterval, maxPayload,
        })
      : scheme;
    this.#states = new StateStore(options.stateMemory ?? 128);
    this.#initial = options.codec.initialState(source.width, source.height);
    this.#current = this.#initial;
    this.#lastQuantizer = iq;
    this.#pacer = new Pacer(this.#ctx);
    this.#ctx.onReceive((bytes) => this.#onDatagram(bytes));
  }

  /** The scheme's name. */
  get scheme(): string {
    return this.#scheme.name;
  }

  get maxPayload(): number {
    return this.#maxPayload;
  }

  /** The frame clock in use. */
  get frameClock(): FrameClock {
    return this.#frameClock;
  }

  /** The latest inter-arrival estimate from the receiver (whole microseconds, as acknowledgements carry it), if any. */
  get interArrivalUs(): number | undefined {
    return this.#interArrivalUs;
  }

  /** Whether the sender is in its conservative period after a loss. */
  get conservative(): boolean {
    return this.#ctx.now() < this.#conservativeUntil;
  }

  /** Codec states kept for loss recovery. */
  get statesKept(): number {
    return this.#states.size;
  }

  get packetsInFlight(): number {
    return this.#inFlight.packetsInFlight;
  }

  /** A failure inside the asynchronous encode loop (codec or source error), if any. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Starts capturing: frame i at start + i / fps. */
  start(): void {
    this.#startTime = this.#ctx.now();
    this.#lastHandoff = this.#startTime;
    if (this.#frameClock === 'single-buffer') this.#nextWanted = this.#frameAfterQueue();
    this.#scheduleCapture(0);
  }

  /** Stops capturing (frames already being encoded or paced still go out). */
  stop(): void {
    this.#stopped = true;
  }

  /** The size the transport would accept for the next frame now (bytes; Infinity before the first acknowledgement). */
  currentTarget(): number {
    if (this.#interArrivalUs === undefined) return Infinity;
    const target = targetFrameSize({
      payloadBytesPerPacket: this.#maxPayload,
      interArrivalUs: this.#interArrivalUs,
      packetsInFlight: this.#inFlight.packetsInFlight,
      budgetUs: (this.#o.budgetMs ?? DEFAULT_DELAY_BUDGET_MS) * 1000,
    });
    return this.#o.conservativeTarget === 'halved' && this.conservative ? Math.floor(target / 2) : target;
  }

  #scheduleCapture(index: number): void {
    if (this.#stopped || (this.#o.frames !== undefined && index >= this.#o.frames)) return;
    const due = this.#startTime + index * this.#frameInterval;
    this.#ctx.setTimer(Math.max(0, due - this.#ctx.now()), () => {
      if (this.#stopped) return;
      this.counters.captured++;
      this.#o.log?.({ kind: 'capture', time: this.#ctx.now(), sourceIndex: index });
      this.#newest = index;
      this.#kick();
      this.#scheduleCapture(index + 1);
    });
  }

  /** single-buffer clock: the frame a buffer queued now is filled with (the first whose scan starts at or after now). */
  #frameAfterQueue(): number {
    return Math.ceil((this.#ctx.now() - this.#startTime) / this.#frameInterval - 1e-9) + 1;
  }

  /** single-buffer clock: the frame the grab returns once the buffer is filled (the one it held), if it is filled. */
  #grab(): number | undefined {
    const sourceEnded = this.#o.frames !== undefined && this.#newest === this.#o.frames - 1 && this.#nextWanted >= this.#o.frames;
    if (this.#newest < this.#nextWanted && !sourceEnded) return undefined;
    if (sourceEnded) return this.#held !== undefined && this.#held > this.#lastEncoded ? this.#held : undefined;
    const held = this.#held;
    this.#held = this.#nextWanted;
    if (held !== undefined) return held;
    // The first grab: nothing held yet; queue the buffer again at once.
    this.#nextWanted = this.#frameAfterQueue();
    return this.#grab();
  }

  /** The frame the next encode takes, if it has been captured. */
  #frameToEncode(): number | undefined {
    const newest = this.#newest > this.#lastEncoded ? this.#newest : undefined;
    if (this.#frameClock === 'newest-frame') return newest;
    if (this.#frameClock === 'single-buffer') return this.#grab();
    if (this.#newest >= this.#nextWanted) return this.#nextWanted;
    // The source has no next frame: the newest one left, if it was never encoded.
    return this.#o.frames !== undefined && this.#newest === this.#o.frames - 1 ? newest : undefined;
  }

  #kick(): void {
    if (this.#busy || this.#failure) return;
    const index = this.#frameToEncode();
    if (index === undefined) return;
    this.#busy = true;
    this.counters.superseded += index - this.#lastEncoded - 1;
    this.#lastEncoded = index;
    this.#encodeFrame(index).then(
      () => {
        this.#busy = false;
        if (this.#frameClock === 'single-buffer') {
          // The buffer is queued again: it takes the first frame whose scan starts now or later.
          this.#nextWanted = this.#frameAfterQueue();
        } else {
          // The next camera frame: the first one due at or after now.
          const due = Math.ceil((this.#ctx.now() - this.#startTime) / this.#frameInterval - 1e-9);
          this.#nextWanted = Math.max(this.#lastEncoded + 1, due);
        }
        this.#kick();
      },
      (error: unknown) => {
        this.#busy = false;
        this.#failure = error instanceof Error ? error : new Error(String(error));
      },
    );
  }

  async #encodeFrame(index: number): Promise<void> {
    const { codec, source } = this.#o;
    const scheme = this.#scheme;
    const picture: Picture = await this.#ctx.work(() => source.frame(index), 0);
    const conservative = this.conservative && this.#report !== undefined;
    const suggested = conservative ? this.#receiverSource(this.#report!) : this.#current;
    const from = scheme.sourceState?.({ suggested, current: this.#current, initial: this.#initial }) ?? suggested;
    const keyFrame = from === this.#initial;
    const encodeMs = this.#o.encodeMs ?? ((w, h, q, k) => modelledEncodeMs(w, h, q, k));
    const time = (q: number) => encodeMs(source.width, source.height, q, keyFrame);
    const view: SchemeView = {
      now: this.#ctx.now(), startMs: this.#startTime, lastQuantizer: this.#lastQuantizer, sourceQuantizer: this.#quantizerOf(from),
      interArrivalUs: this.#interArrivalUs,
      skipsInARow: this.#skipsInARow, keyFrame, targetBytes: () => this.currentTarget(),
      trialBytes: async (q) => (await this.#ctx.work(() => codec.encode(from, picture, q), 0)).frame.length,
      sampleEncodeMs: (q) => encodeMs(Math.max(1, Math.floor(source.width / 4)), Math.max(1, Math.floor(source.height / 4)), q, keyFrame),
    };
    scheme.adjust?.(view);
    const plan = await scheme.plan(view);
    const qs = plan.quantizers;
    if (qs.length === 0) throw new RangeError(`scheme ${scheme.name} planned no encoding`);
    const ms = (plan.searchMs ?? 0) + (plan.timing === 'serial' ? qs.map(time).reduce((a, b) => a + b) : Math.max(...qs.map(time)));
    const results = await this.#ctx.work(() => this.#encodeAll(from, picture, plan), ms);
    this.counters.encoded += results.length;
    const target = this.currentTarget();
    const encoded = results.map((r) => ({ quantizer: r.quantizer, bytes: r.frame.length }));
    const choice = scheme.choose(encoded, { ...view, now: this.#ctx.now(), target });
    if (choice === 'skip') {
      this.#skipsInARow++;
      this.counters.skipped++;
      const [better, worse = better] = encoded;
      this.#o.log?.({
        kind: 'skip', time: this.#ctx.now(), sourceIndex: index, targetBytes: target, betterBytes: better.bytes, worseBytes: worse.bytes,
        sizes: encoded.map((e) => e.bytes),
      });
      return;
    }
    const result = results[choice.index];
    if (result === undefined) throw new RangeError(`scheme ${scheme.name} chose encoding ${choice.index} of ${results.length}`);
    this.#skipsInARow = 0;
    this.#send(index, from, result, choice.label, target, ms);
  }

  /** Encodes the picture at each of the plan's quantizers (at once if the plan is parallel, or if concurrentEncodes). */
  async #encodeAll(from: CodecState, picture: Picture, plan: EncodingPlan): Promise<EncodeResult[]> {
    const { codec } = this.#o;
    if (plan.timing === 'parallel' || this.#o.concurrentEncodes === true) return Promise.all(plan.quantizers.map((q) => codec.encode(from, picture, q)));
    const results: EncodeResult[] = [];
    for (const q of plan.quantizers) results.push(await codec.encode(from, picture, q));
    return results;
  }

  /** The state to encode from while conservative: the receiver's, the newest other it holds, or the initial one. */
  #receiverSource(report: { receiverStateId: string; held: readonly string[] }): CodecState {
    for (const id of [report.receiverStateId, ...report.held]) {
      if (id === this.#initial.id) return this.#initial;
      const state = this.#states.get(id);
      if (state) return state;
    }
    return this.#initial;
  }

  #send(sourceIndex: number, from: CodecState, result: EncodeResult, choice: EncodingLabel, targetBytes: number, encodeMs: number): void {
    const frame = result.frame;
    const pieces = splitFrame(frame, this.#maxPayload);
    const frameNumber = this.#nextFrameNumber++;
    const sourceStateId = from.id;
    const targetStateId = result.state.id;
    const checksum = crc32(frame);
    this.#inFlight.addFrame(frameNumber, pieces.length);
    this.#remember(frameNumber, { sourceStateId, targetStateId, quantizer: result.quantizer });
    this.#states.add(result.state);
    this.#current = result.state;
    this.#lastQuantizer = result.quantizer;
    this.counters.sent++;
    if (result.keyFrame) this.counters.keyFrames++;
    this.#scheme.onSent?.({ time: this.#ctx.now(), bytes: frame.length, quantizer: result.quantizer, keyFrame: result.keyFrame });
    if (this.#recovering) {
      this.#o.log?.({ kind: 'recovery', time: this.#ctx.now(), frameNumber, fromStateId: sourceStateId, keyFrame: result.keyFrame });
      this.#recovering = false;
      this.#chainStartFrame = frameNumber;
    }
    this.#o.log?.({
      kind: 'sent', time: this.#ctx.now(), sourceIndex, frameNumber, bytes: frame.length, fragments: pieces.length,
      quantizer: result.quantizer, keyFrame: result.keyFrame, choice, targetBytes, sourceStateId, targetStateId, encodeMs,
    });
    const { width, height } = this.#o.source;
    // The grace period: the time since the previous frame was handed to the pacer.
    const now = this.#ctx.now();
    const graceUs = this.#scheme.grace === false ? 0 : Math.min(0xffffffff, Math.max(0, Math.floor((now - this.#lastHandoff) * 1000)));
    this.#lastHandoff = now;
    const gapMs = pacingGapUs(this.#interArrivalUs) / 1000;
    this.#pacer.enqueue(pieces.map((payload, i) => () => {
      const bytes = encodeFragment({
        connectionId: this.#o.connectionId, frameNumber, fragmentIndex: i, fragmentCount: pieces.length, width, height,
        sourceStateId, targetStateId, timeSincePreviousFrameUs: i === 0 ? graceUs : 0, frameLength: frame.length, frameChecksum: checksum, payload,
      });
      this.counters.datagramsSent++;
      this.counters.bytesSent += bytes.length;
      this.#scheme.onDatagramSent?.({ time: this.#ctx.now(), frameNumber, fragmentIndex: i, bytes: bytes.length });
      return bytes;
    }), gapMs);
  }

  #remember(frameNumber: number, record: SentFrameRecord): void {
    this.#sentFrames.set(frameNumber, record);
    this.#frameOfState.set(record.targetStateId, frameNumber);
    const limit = 4096;
    if (this.#sentFrames.size > limit) {
      const oldest = this.#sentFrames.keys().next().value as number;
      const old = this.#sentFrames.get(oldest)!;
      this.#sentFrames.delete(oldest);
      if (this.#frameOfState.get(old.targetStateId) === oldest) this.#frameOfState.delete(old.targetStateId);
    }
  }

  #onDatagram(bytes: Uint8Array): void {
    let ack: AckDatagram;
    try {
      const d = decodeDatagram(bytes);
      if (d.type !== 'ack') {
        this.counters.unexpectedDatagrams++;
        return;
      }
      ack = d;
    } catch (error) {
      if (!(error instanceof DatagramError)) throw error;
      this.counters.badDatagrams++;
      return;
    }
    if (ack.connectionId !== this.#o.connectionId) {
      this.counters.foreignDatagrams++;
      return;
    }
    if (!this.#inFlight.acknowledge(ack.frameNumber, ack.fragmentIndex)) {
      // An acknowledgement of something never sent (or long forgotten).
      this.counters.unexpectedDatagrams++;
      return;
    }
    this.counters.acks++;
    this.#scheme.onAck?.({ time: this.#ctx.now(), frameNumber: ack.frameNumber, fragmentIndex: ack.fragmentIndex });
    const latest = this.#latestAck;
    if (latest && (ack.frameNumber < latest.frame || (ack.frameNumber === latest.frame && ack.fragmentIndex < latest.fragment))) return; // reordered: older news (the same one again counts, as in the reference)
    this.#latestAck = { frame: ack.frameNumber, fragment: ack.fragmentIndex };
    if (ack.interArrivalUs !== NO_ESTIMATE) this.#interArrivalUs = ack.interArrivalUs;
    this.#report = { receiverStateId: ack.currentStateId, held: ack.heldStateIds };
    this.#checkReceiverState(ack);
    this.#states.dropOlderThan(ack.currentStateId);
  }

  /** The quantizer of the frame that made `state` (undefined for the initial state, or a frame long forgotten). */
  #quantizerOf(state: CodecState): number | undefined {
    const frame = state === this.#initial ? undefined : this.#frameOfState.get(state.id);
    return frame === undefined ? undefined : this.#sentFrames.get(frame)?.quantizer;
  }

  /** The frame whose target state `id` is (-1 for the initial state), if the sender made it. */
  #frameOf(id: string): number | undefined {
    return id === this.#initial.id ? -1 : this.#frameOfState.get(id);
  }

  #checkReceiverState(ack: AckDatagram): void {
    if (this.conservative) return; // as the reference: a loss seen while conservative changes nothing
    const f = ack.frameNumber;
    if (f < this.#chainStartFrame) return; // frame f predates the current chain
    const record = this.#sentFrames.get(f);
    if (record === undefined) return; // long forgotten
    const required = this.#frameOf(record.sourceStateId) ?? Infinity; // the frame whose state f was encoded from
    const reached = this.#frameOf(ack.currentStateId);
    if (reached !== undefined && reached >= required) return; // the receiver is where it should be
    this.counters.lossesDetected++;
    this.#o.log?.({ kind: 'loss', time: this.#ctx.now(), ackFrame: f, receiverStateId: ack.currentStateId });
    this.#recovering = true;
    this.#conservativeUntil = this.#ctx.now() + (this.#o.conservativeMs ?? DEFAULT_CONSERVATIVE_MS);
  }
}
