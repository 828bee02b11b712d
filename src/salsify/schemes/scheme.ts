// The scheme interface: what distinguishes one way of running Salsify's sender
// (salsify-1, salsify-2, the conventional baseline, ...) from another. The
// sender (sender.ts) keeps what every scheme shares: the capture clock, the
// codec states and loss recovery, the transport's target size, pacing,
// fragmentation and acknowledgements. Per frame it asks the scheme:
//
//   adjust(view)           when to adjust: called first, every frame
//   sourceState(choice)    which state to encode from (default: loss recovery's)
//   plan(view)             which quantizers to encode at, and whether the
//                          encodings run one after another ('serial': their
//                          modelled times add) or at once ('parallel': the
//                          longest counts)
//   choose(encoded, view)  which encoding to send, or skip the frame; the
//                          view's target is the transport's after encoding
//   onSent(frame)          what was sent (a controller's feedback)
//   onDatagramSent(d), onAck(a)  each datagram as it leaves and each
//                          acknowledgement as it arrives (a per-packet
//                          congestion controller's input: webrtc-like)
//   grace                  false: the first fragment of a frame carries a
//                          grace period of 0 (salsify-nograce)
//
// A scheme is built by its factory from SchemeParams (schemes/registry.ts
// names the factories). How the next schemes fit: four encodings are a plan
// of four quantizers; a target computed before encoding is view.targetBytes()
// read in plan() (salsify-targetsize); one encoding found by search is a
// plan() that tries quantizers with view.trialBytes() (not charged as encoder
// time: it stands for the encoder's size estimate) and returns the one it
// found; a scheme that knows the future link gets it through its factory's
// params.
import type { CodecState } from '../../codec-bridge/types.ts';

export type EncodeTiming = 'serial' | 'parallel';

/**
 * The label of the encoding sent, as SenderEvent reports it: 'better' and
 * 'worse' for Salsify's two encodings, 'only' for a scheme that makes one,
 * 'q+0', 'q-23', 'q+17', 'q=127' for salsify-4's.
 */
export type EncodingLabel = string;

export interface EncodingPlan {
  /** Quantizers (0..127) to encode the frame at, all from the same state. */
  readonly quantizers: readonly number[];
  readonly timing: EncodeTiming;
  /** Encoder time the plan itself took before the encodings (ms; salsify-targetsize's size estimates), charged first. */
  readonly searchMs?: number;
}

/** What the sender tells a scheme about the moment and the transport. */
export interface SchemeView {
  /** Current time (ms, the endpoint's clock). */
  readonly now: number;
  /** When the sender started capturing (ms). */
  readonly startMs: number;
  /** The quantizer of the last frame sent (the initial quantizer before any). */
  readonly lastQuantizer: number;
  /**
   * The quantizer of the frame that made the state this frame is encoded
   * from: what the reference's encoder object for that state holds as its
   * last quantizer. Undefined for the initial state (a key frame), whose
   * encoder has none.
   */
  readonly sourceQuantizer: number | undefined;
  /** The receiver's latest inter-arrival estimate (whole microseconds, as acknowledgements carry it), if any. */
  readonly interArrivalUs: number | undefined;
  /** Frames skipped in a row just before this one. */
  readonly skipsInARow: number;
  /** Whether this frame will be a key frame (encoded from the initial state). */
  readonly keyFrame: boolean;
  /** The size the transport would accept now (bytes; Infinity before the first acknowledgement). */
  targetBytes(): number;
  /** The size of the frame encoded at `quantizer` from this frame's state, without charging encoder time. */
  trialBytes(quantizer: number): Promise<number>;
  /** Modelled time of an encoding of a 1/4 x 1/4 sample of the picture at `quantizer` (ms; the reference's size estimate); absent: not modelled. */
  sampleEncodeMs?(quantizer: number): number;
}

export interface ChoiceView extends SchemeView {
  /** The transport's target size once the encodings are done (bytes; Infinity before the first acknowledgement). */
  readonly target: number;
}

/** An encoding the plan asked for. */
export interface Encoded {
  readonly quantizer: number;
  readonly bytes: number;
}

export type EncodingChoice = 'skip' | { readonly index: number; readonly label: EncodingLabel };

/** The states a frame can be encoded from. */
export interface SourceChoice {
  /** What loss recovery picks: the last state sent, or while conservative after a loss the receiver's (or the initial one). */
  readonly suggested: CodecState;
  /** The last state sent (the initial state before any). */
  readonly current: CodecState;
  /** The initial state: encoding from it makes a key frame. */
  readonly initial: CodecState;
}

export interface SentFrameInfo {
  readonly time: number;
  readonly bytes: number;
  readonly quantizer: number;
  readonly keyFrame: boolean;
}

/** One datagram of a frame, as the pacer sends it. */
export interface SentDatagramInfo {
  readonly time: number;
  readonly frameNumber: number;
  readonly fragmentIndex: number;
  /** Bytes of the datagram (header included). */
  readonly bytes: number;
}

/** An acknowledgement of a datagram the sender sent, when it reaches the sender. */
export interface AckInfo {
  readonly time: number;
  readonly frameNumber: number;
  readonly fragmentIndex: number;
}

export interface SenderScheme {
  readonly name: string;
  /** Whether a frame's first fragment carries the grace period (default true; false: it carries 0). */
  readonly grace?: boolean;
  adjust?(view: SchemeView): void;
  sourceState?(choice: SourceChoice): CodecState;
  plan(view: SchemeView): EncodingPlan | Promise<EncodingPlan>;
  choose(encoded: readonly Encoded[], view: ChoiceView): EncodingChoice;
  onSent?(frame: SentFrameInfo): void;
  /** Every datagram as it leaves (a per-packet congestion controller's send times: webrtc-like). */
  onDatagramSent?(datagram: SentDatagramInfo): void;
  /** Every acknowledgement of a sent datagram as it arrives (its feedback). */
  onAck?(ack: AckInfo): void;
}

/** What a scheme's factory is given (the sender's options, resolved). */
export interface SchemeParams {
  readonly initialQuantizer: number;
  readonly betterStep: number;
  readonly worseStep: number;
  readonly maxSkips: number;
  /** Time between two captured frames (ms). */
  readonly frameIntervalMs: number;
  /** Frame bytes per datagram. */
  readonly maxPayload: number;
}
