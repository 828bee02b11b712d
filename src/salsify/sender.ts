// The Salsify sender: captures frames at the source's rate and encodes the
// newest one as its scheme plans (schemes/: salsify-1 and salsify-2 encode
// twice, at a better and a clearly worse quality, from the same codec state,
// and send the larger encoding that fits the transport's target size, or skip
// the frame; conventional encodes once at a quality adjusted once a second).
// The sender keeps what every scheme shares: the capture clock, the states and
// loss recovery, the transport's target, pacing, fragmentation and acks. All
// timing goes through the EndpointContext; encodes through ctx.work with their
// modelled duration.
//
// Every datagram of a frame carries the frame's grace period: the time from
// the departure of the previous datagram (the previous frame's last) to the
// departure of this frame's first, i.e. how long the sender left the path idle.
//
// Loss recovery: the sender keeps the states it sent, keyed by id (from the
// receiver's latest reported state on, at most `stateMemory` of them). Each
// acknowledgement names the receiver's state (the state it will be in once it
// has decoded every complete frame it accepted). Having seen frame f, the
// receiver must have accepted frame f - 1, i.e. be at the target state of
// frame f - 1 or later; when it is not, a frame was lost, and the next frame
// is encoded from the receiver's state (or another state it reports holding,
// or the initial state: a key frame), after which the sender stays
// conservative (target size halved) for `conservativeMs`.
import type { CodecState, EncodeResult, FunctionalCodec, Picture } from '../codec-bridge/types.ts';
import type { VideoSource } from '../codec-bridge/video/video-source.ts';
import type { EndpointContext } from '../net/endpoint.ts';
import { InFlightCounter } from '../sprout/in-flight.ts';
import { DEFAULT_DELAY_BUDGET_MS, targetFrameSize } from '../sprout/target-size.ts';
import { DEFAULT_MAX_SKIPS } from './choose-encoding.ts';
import { crc32 } from './crc32.ts';
import { DatagramError, decodeDatagram, encodeFragment, MAX_FRAGMENT_PAYLOAD, NO_ESTIMATE, splitFrame, type AckDatagram } from './datagram.ts';
import { Pacer, pacingIntervalMs } from './pacer.ts';
import { BETTER_STEP, clampQuantizer, WORSE_STEP } from './quantizer.ts';
import { createScheme, SCHEME_NAMES, type SchemeName } from './schemes/registry.ts';
import type { EncodingPlan, SchemeView, SenderScheme } from './schemes/scheme.ts';
import { StateStore } from './state-store.ts';
import { modelledEncodeMs } from './timing-model.ts';

/** A scheme's name (the registry in schemes/registry.ts lists them). */
export type Scheme = SchemeName;
export const SCHEMES: readonly Scheme[] = SCHEME_NAMES;

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
  /** The quantizer before the first frame (default 64). */
  readonly initialQuantizer?: number;
  /** Given to a named scheme's factory (schemes/scheme.ts SchemeParams; defaults in quantizer.ts, choose-encoding.ts). */
  readonly betterStep?: number;
  readonly worseStep?: number;
  readonly maxSkips?: number;
  /** The inter-arrival time assumed before the first acknowledgement (ms, default 10). */
  readonly initialInterArrivalMs?: number;
  /** Frame bytes per datagram (default: the most that fits 1472 bytes). */
  readonly maxPayload?: number;
  /**
   * At most this many states are kept for loss recovery (default 128). States
   * older than the receiver's latest reported state are dropped at once (the
   * sender never needs them), so in practice the store holds about the frames
   * in flight; the cap matters only behind a long queue. A 720p VP8 state
   * holds up to three 1.4 MB reference pictures.
   */
  readonly stateMemory?: number;
  /** How long the sender stays conservative after a loss (ms, default 500). */
  readonly conservativeMs?: number;
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
      choice: 'better' | 'worse' | 'only';
      targetBytes: number;
      sourceStateId: string;
      targetStateId: string;
      encodeMs: number;
    }
  | { kind: 'skip'; time: number; sourceIndex: number; targetBytes: number; betterBytes: number; worseBytes: number }
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
}

export class SalsifySender {
  readonly #o: SenderOptions;
  readonly #ctx: EndpointContext;
  readonly #pacer: Pacer;
  readonly #inFlight = new InFlightCounter();
  readonly #states: StateStore;
  readonly #initial: CodecState;
  readonly #frameInterval: number;
  readonly #scheme: SenderScheme;
  readonly #sentFrames = new Map<number, SentFrameRecord>();
  readonly #frameOfState = new Map<string, number>();
  readonly counters: SenderCounters = {
    captured: 0, encoded: 0, sent: 0, skipped: 0, superseded: 0, datagramsSent: 0, bytesSent: 0,
    acks: 0, badDatagrams: 0, foreignDatagrams: 0, unexpectedDatagrams: 0, lossesDetected: 0, keyFrames: 0,
  };

  #startTime = 0;
  #stopped = false;
  #newest = -1;
  #lastEncoded = -1;
  #busy = false;
  #current: CodecState;
  #lastQuantizer: number;
  #skipsInARow = 0;
  #nextFrameNumber = 0;
  #interArrivalMs: number | undefined;
  #latestAck: { frame: number; fragment: number } | undefined;
  #recovery: { receiverStateId: string; held: readonly string[] } | undefined;
  #chainStartFrame = 0;
  #conservativeUntil = -Infinity;
  #lastDeparture: number | undefined;
  #failure: Error | undefined;

  constructor(options: SenderOptions) {
    this.#o = options;
    this.#ctx = options.ctx;
    const { source, scheme } = options;
    if (!(source.fps > 0)) throw new RangeError(`video source ${source.description} has frame rate ${source.fps}`);
    if (!(Number.isInteger(options.connectionId) && options.connectionId >= 0 && options.connectionId <= 0xffffffff)) {
      throw new RangeError(`connection id must be a 32-bit unsigned integer, got ${options.connectionId}`);
    }
    const maxPayload = options.maxPayload ?? MAX_FRAGMENT_PAYLOAD;
    if (!(Number.isInteger(maxPayload) && maxPayload > 0 && maxPayload <= MAX_FRAGMENT_PAYLOAD)) {
      throw new RangeError(`max payload must be an integer in 1..${MAX_FRAGMENT_PAYLOAD}, got ${maxPayload}`);
    }
    if (options.frames !== undefined && !(Number.isInteger(options.frames) && options.frames >= 0)) throw new RangeError(`frames must be an integer >= 0, got ${options.frames}`);
    const iq = options.initialQuantizer ?? 64;
    if (clampQuantizer(iq) !== iq) throw new RangeError(`initial quantizer must be an integer in 0..127, got ${iq}`);
    const ia = options.initialInterArrivalMs ?? 10;
    if (!(ia > 0)) throw new RangeError(`initial inter-arrival must be > 0 ms, got ${ia}`);
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
    this.#pacer = new Pacer(this.#ctx, () => pacingIntervalMs(this.#interArrivalMs));
    this.#ctx.onReceive((bytes) => this.#onDatagram(bytes));
  }

  /** The scheme's name. */
  get scheme(): string {
    return this.#scheme.name;
  }

  get maxPayload(): number {
    return this.#o.maxPayload ?? MAX_FRAGMENT_PAYLOAD;
  }

  /** The latest inter-arrival estimate from the receiver (ms), if any. */
  get interArrivalMs(): number | undefined {
    return this.#interArrivalMs;
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
    this.#scheduleCapture(0);
  }

  /** Stops capturing (frames already being encoded or paced still go out). */
  stop(): void {
    this.#stopped = true;
  }

  /** The size the transport would accept for the next frame now (bytes). */
  currentTarget(): number {
    const target = targetFrameSize({
      payloadBytesPerPacket: this.maxPayload,
      interArrivalMs: this.#interArrivalMs ?? this.#o.initialInterArrivalMs ?? 10,
      packetsInFlight: this.#inFlight.packetsInFlight,
      budgetMs: this.#o.budgetMs ?? DEFAULT_DELAY_BUDGET_MS,
    });
    return this.#ctx.now() < this.#conservativeUntil ? Math.floor(target / 2) : target;
  }

  #scheduleCapture(index: number): void {
    if (this.#stopped || (this.#o.frames !== undefined && index >= this.#o.frames)) return;
    const due = this.#startTime + index * this.#frameInterval;
    this.#ctx.setTimer(Math.max(0, due - this.#ctx.now()), () => {
      if (this.#stopped) return;
      this.counters.captured++;
      this.#o.log?.({ kind: 'capture', time: this.#ctx.now(), sourceIndex: index });
      if (this.#newest > this.#lastEncoded) this.counters.superseded++;
      this.#newest = index;
      this.#kick();
      this.#scheduleCapture(index + 1);
    });
  }

  #kick(): void {
    if (this.#busy || this.#failure || this.#newest <= this.#lastEncoded) return;
    this.#busy = true;
    this.#encodeNewest().then(
      () => {
        this.#busy = false;
        this.#kick();
      },
      (error: unknown) => {
        this.#busy = false;
        this.#failure = error instanceof Error ? error : new Error(String(error));
      },
    );
  }

  async #encodeNewest(): Promise<void> {
    const index = this.#newest;
    this.#lastEncoded = index;
    const { codec, source } = this.#o;
    const scheme = this.#scheme;
    const picture: Picture = await this.#ctx.work(() => source.frame(index), 0);
    const recovering = this.#recovery !== undefined;
    const suggested = this.#recovery ? this.#recoverySource(this.#recovery) : this.#current;
    const from = scheme.sourceState?.({ suggested, current: this.#current, initial: this.#initial }) ?? suggested;
    const keyFrame = from === this.#initial;
    const encodeMs = this.#o.encodeMs ?? ((w, h, q, k) => modelledEncodeMs(w, h, q, k));
    const time = (q: number) => encodeMs(source.width, source.height, q, keyFrame);
    const view: SchemeView = {
      now: this.#ctx.now(), startMs: this.#startTime, lastQuantizer: this.#lastQuantizer, interArrivalMs: this.#interArrivalMs,
      skipsInARow: this.#skipsInARow, keyFrame, targetBytes: () => this.currentTarget(),
      trialBytes: async (q) => (await this.#ctx.work(() => codec.encode(from, picture, q), 0)).frame.length,
    };
    scheme.adjust?.(view);
    const plan = await scheme.plan(view);
    const qs = plan.quantizers;
    if (qs.length === 0) throw new RangeError(`scheme ${scheme.name} planned no encoding`);
    const ms = plan.timing === 'serial' ? qs.map(time).reduce((a, b) => a + b) : Math.max(...qs.map(time));
    const results = await this.#ctx.work(() => this.#encodeAll(from, picture, plan), ms);
    this.counters.encoded += results.length;
    const target = this.currentTarget();
    const encoded = results.map((r) => ({ quantizer: r.quantizer, bytes: r.frame.length }));
    const choice = scheme.choose(encoded, { ...view, now: this.#ctx.now(), target });
    if (choice === 'skip') {
      this.#skipsInARow++;
      this.counters.skipped++;
      const [better, worse = better] = encoded;
      this.#o.log?.({ kind: 'skip', time: this.#ctx.now(), sourceIndex: index, targetBytes: target, betterBytes: better.bytes, worseBytes: worse.bytes });
      return;
    }
    const result = results[choice.index];
    if (result === undefined) throw new RangeError(`scheme ${scheme.name} chose encoding ${choice.index} of ${results.length}`);
    this.#skipsInARow = 0;
    this.#send(index, from, result, choice.label, target, ms, recovering);
  }

  /** Encodes the picture at each of the plan's quantizers (at once if the plan is parallel, or if concurrentEncodes). */
  async #encodeAll(from: CodecState, picture: Picture, plan: EncodingPlan): Promise<EncodeResult[]> {
    const { codec } = this.#o;
    if (plan.timing === 'parallel' || this.#o.concurrentEncodes === true) return Promise.all(plan.quantizers.map((q) => codec.encode(from, picture, q)));
    const results: EncodeResult[] = [];
    for (const q of plan.quantizers) results.push(await codec.encode(from, picture, q));
    return results;
  }

  /** The state to encode from after a loss: the receiver's, another it holds, or the initial one. */
  #recoverySource(recovery: { receiverStateId: string; held: readonly string[] }): CodecState {
    for (const id of [recovery.receiverStateId, ...recovery.held]) {
      if (id === this.#initial.id) return this.#initial;
      const state = this.#states.get(id);
      if (state) return state;
    }
    return this.#initial;
  }

  #send(sourceIndex: number, from: CodecState, result: EncodeResult, choice: 'better' | 'worse' | 'only', targetBytes: number, encodeMs: number, recovering: boolean): void {
    const frame = result.frame;
    const pieces = splitFrame(frame, this.maxPayload);
    const frameNumber = this.#nextFrameNumber++;
    const sourceStateId = from.id;
    const targetStateId = result.state.id;
    const checksum = crc32(frame);
    this.#inFlight.addFrame(frameNumber, pieces.length);
    this.#remember(frameNumber, { sourceStateId, targetStateId });
    this.#states.add(result.state);
    this.#current = result.state;
    this.#lastQuantizer = result.quantizer;
    this.counters.sent++;
    if (result.keyFrame) this.counters.keyFrames++;
    this.#scheme.onSent?.({ time: this.#ctx.now(), bytes: frame.length, quantizer: result.quantizer, keyFrame: result.keyFrame });
    if (recovering) {
      this.#o.log?.({ kind: 'recovery', time: this.#ctx.now(), frameNumber, fromStateId: sourceStateId, keyFrame: result.keyFrame });
      this.#recovery = undefined;
      this.#chainStartFrame = frameNumber;
    }
    this.#o.log?.({
      kind: 'sent', time: this.#ctx.now(), sourceIndex, frameNumber, bytes: frame.length, fragments: pieces.length,
      quantizer: result.quantizer, keyFrame: result.keyFrame, choice, targetBytes, sourceStateId, targetStateId, encodeMs,
    });
    const { width, height } = this.#o.source;
    let gapUs = 0;
    pieces.forEach((payload, i) => {
      this.#pacer.enqueue((departure) => {
        if (i === 0) {
          gapUs = this.#lastDeparture === undefined ? 0 : Math.min(0xffffffff, Math.max(0, Math.round((departure - this.#lastDeparture) * 1000)));
        }
        this.#lastDeparture = departure;
        const bytes = encodeFragment({
          connectionId: this.#o.connectionId, frameNumber, fragmentIndex: i, fragmentCount: pieces.length, width, height,
          sourceStateId, targetStateId, timeSincePreviousFrameUs: gapUs, frameLength: frame.length, frameChecksum: checksum, payload,
        });
        this.counters.datagramsSent++;
        this.counters.bytesSent += bytes.length;
        return bytes;
      });
    });
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
    const latest = this.#latestAck;
    if (latest && (ack.frameNumber < latest.frame || (ack.frameNumber === latest.frame && ack.fragmentIndex <= latest.fragment))) return; // reordered: older news
    this.#latestAck = { frame: ack.frameNumber, fragment: ack.fragmentIndex };
    if (ack.interArrivalUs !== NO_ESTIMATE && ack.interArrivalUs > 0) this.#interArrivalMs = ack.interArrivalUs / 1000;
    this.#checkReceiverState(ack);
    this.#states.dropOlderThan(ack.currentStateId);
  }

  #checkReceiverState(ack: AckDatagram): void {
    const f = ack.frameNumber;
    if (f - 1 < this.#chainStartFrame) return; // frame f - 1 predates the current chain
    const reached = this.#frameOfState.get(ack.currentStateId);
    if (reached !== undefined && reached >= f - 1) return; // the receiver is where it should be
    if (!this.#recovery) {
      this.counters.lossesDetected++;
      this.#o.log?.({ kind: 'loss', time: this.#ctx.now(), ackFrame: f, receiverStateId: ack.currentStateId });
    }
    this.#recovery = { receiverStateId: ack.currentStateId, held: ack.heldStateIds };
    this.#conservativeUntil = this.#ctx.now() + (this.#o.conservativeMs ?? 500);
  }
}
