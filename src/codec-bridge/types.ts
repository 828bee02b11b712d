// The functional codec contract shared by the VP8 codec (native-vp8) and any
// model codec used in simulations: state goes in, a new state comes out.

/** An I420 picture: Y plane (width x height), then U and V (ceil(w/2) x ceil(h/2)). */
export interface Picture {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** An immutable codec state (decoder references and whatever else must persist). */
export interface CodecState {
  /** A hash of the contents as 16 lower-case hex digits: equal for equal states, stable across processes. */
  readonly id: string;
  readonly width: number;
  readonly height: number;
  /** Size of the state's contents in bytes. */
  readonly byteLength: number;
  serialize(): Uint8Array;
}

export interface EncodeResult {
  /** The compressed frame. */
  readonly frame: Uint8Array;
  /** The state after decoding this frame (what a decoder at `state` reaches). */
  readonly state: CodecState;
  /** The quantizer index (0..127) actually used. */
  readonly quantizer: number;
  readonly keyFrame: boolean;
}

export interface DecodeResult {
  readonly picture: Picture;
  readonly state: CodecState;
}

export interface ConcealedDecodeResult extends DecodeResult {
  /** Something was missing or did not match and the codec concealed it: the picture is damaged. */
  readonly concealed: boolean;
}

export interface FunctionalCodec {
  readonly name: string;
  /** The state before any frame: encoding from it gives a key frame. */
  initialState(width: number, height: number): CodecState;
  /** Encodes `picture` predicting from `state`'s references at quantizer 0..127. Never changes `state`. */
  encode(state: CodecState, picture: Picture, quantizer: number): Promise<EncodeResult>;
  /** Decodes `frame` from `state`. Never changes `state`. Rejects on a frame that does not decode. */
  decode(state: CodecState, frame: Uint8Array): Promise<DecodeResult>;
  /**
   * Present when the codec can conceal losses, as alfalfa's receiver decoded
   * (src/salsify/salsify-receiver.cc): decodes `received` (the frame's bytes
   * up to its first missing packet, or the whole frame) from `state`, whatever
   * state the frame was encoded from, concealing what is missing. The result
   * is a state the encoder never made. `frameLength` is the whole frame's.
   */
  conceal?(state: CodecState, received: Uint8Array, frameLength: number): Promise<ConcealedDecodeResult>;
  /** Releases native resources (threads, decoder instances). */
  close(): Promise<void>;
}
