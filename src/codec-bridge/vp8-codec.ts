// The functional VP8 codec: libvpx driven through its reference controls so
// that encode(state, picture, q) and decode(state, frame) are pure functions
// of their arguments (see native-vp8/src/encoder.c and decoder.c).
//
// When the linked libvpx has error concealment (the one built from Debian's
// source by scripts/libvpx-source.mjs; not the system's), the codec also
// offers conceal(): a decode of a frame's received prefix, or of a whole
// frame from a state it was not encoded from, with libvpx's concealment
// (native-vp8/src/decoder.c).
//
// Encodings of one picture size go round-robin to a fixed set of encoder
// instances (call k to instance k mod n), each running one job at a time on
// Node's thread pool: two encodings run in parallel, and the same sequence of
// calls gives the same bytes (libvpx's encoder keeps private motion-search
// history, so a different history may give different, equally valid bytes).
import { type Handle, nativeVp8 } from './native.ts';
import { checkPicture, cropReference } from './picture.ts';
import { levelForQuantizer } from './quantizer.ts';
import { SerialQueue } from './serial-queue.ts';
import type { CodecState, ConcealedDecodeResult, DecodeResult, EncodeResult, FunctionalCodec, Picture } from './types.ts';
import { initialVp8State, type Slots, Vp8State } from './vp8-state.ts';

export interface Vp8CodecOptions {
  /** libvpx speed (VP8E_SET_CPUUSED), -16..-1: negative values fix the speed, so runs repeat exactly. Default -8. */
  cpuUsed?: number;
  /** Encoder instances per picture size (encodings in parallel). Default 2. */
  encoders?: number;
}

/** Where an encoding spent its time, in milliseconds (measured in the worker thread). */
export interface Vp8EncodeTimings {
  readonly inject: number;
  readonly throwaway: number;
  readonly encode: number;
  readonly extract: number;
}

export interface Vp8EncodeResult extends EncodeResult {
  readonly state: Vp8State;
  readonly timings: Vp8EncodeTimings;
  /**
   * Throw-away encodings done first: a key frame when the libvpx instance is new or renewed (every 140
   * inter frames, see native-vp8/src/encoder.c), and one per reference slot that had to be separated from
   * a shared buffer. 0 in steady use.
   */
  readonly throwawayEncodes: number;
}

export interface Vp8DecodeTimings {
  readonly reset: number;
  readonly inject: number;
  readonly decode: number;
  readonly extract: number;
}

export interface Vp8DecodeResult extends DecodeResult, ConcealedDecodeResult {
  readonly state: Vp8State;
  readonly keyFrame: boolean;
  readonly quantizer: number;
  readonly timings: Vp8DecodeTimings;
}

export interface Vp8Codec extends FunctionalCodec {
  initialState(width: number, height: number): Vp8State;
  encode(state: CodecState, picture: Picture, quantizer: number): Promise<Vp8EncodeResult>;
  decode(state: CodecState, frame: Uint8Array): Promise<Vp8DecodeResult>;
  /** Present only when the linked libvpx has error concealment. */
  conceal?(state: CodecState, received: Uint8Array, frameLength: number): Promise<Vp8DecodeResult>;
}

interface Instance {
  handle: Handle;
  queue: SerialQueue;
}

interface SizeInstances {
  encoders: Instance[];
  nextEncoder: number;
  decoder: Instance;
}

function asVp8State(state: CodecState, where: string): Vp8State {
  if (!(state instanceof Vp8State)) throw new TypeError(`${where}: state was not made by the VP8 codec (use initialState or deserializeState)`);
  return state;
}

/** The last reference of a state, cropped to the visible size: the picture a decoder shows. */
export function reconstruction(state: CodecState): Picture {
  const s = asVp8State(state, 'reconstruction');
  const refs = s.references();
  if (!refs) throw new Error('reconstruction: the initial state holds no picture');
  return cropReference(refs[0], s.width, s.height);
}

export function createVP8Codec(options: Vp8CodecOptions = {}): Vp8Codec {
  const cpuUsed = options.cpuUsed ?? -8;
  const encoderCount = options.encoders ?? 2;
  if (!Number.isInteger(cpuUsed) || cpuUsed < -16 || cpuUsed > -1) {
    throw new RangeError(`createVP8Codec: cpuUsed must be an integer in -16..-1 (positive speeds depend on wall-clock time), got ${cpuUsed}`);
  }
  if (!Number.isInteger(encoderCount) || encoderCount < 1 || encoderCount > 16) {
    throw new RangeError(`createVP8Codec: encoders must be an integer in 1..16, got ${encoderCount}`);
  }
  const native = nativeVp8();
  const sizes = new Map<string, SizeInstances>();
  let closed = false;

  function instancesFor(width: number, height: number): SizeInstances {
    if (closed) throw new Error('VP8 codec is closed');
    const key = `${width}x${height}`;
    let found = sizes.get(key);
    if (!found) {
      found = {
        encoders: Array.from({ length: encoderCount }, () => ({ handle: native.encoderCreate(width, height, cpuUsed), queue: new SerialQueue() })),
        nextEncoder: 0,
        decoder: { handle: native.decoderCreate(width, height, cpuUsed), queue: new SerialQueue() },
      };
      sizes.set(key, found);
    }
    return found;
  }

  async function decode(state: CodecState, frame: Uint8Array, conceal: boolean): Promise<Vp8DecodeResult> {
    const where = conceal ? 'conceal' : 'decode';
    const from = asVp8State(state, where);
    if (!(frame instanceof Uint8Array)) throw new TypeError(`${where}: frame must be a Uint8Array`);
    if (frame.length === 0) throw new RangeError(`${where}: frame is empty`);
    const { decoder } = instancesFor(from.width, from.height);
    const refs = from.references();
    const hashes = from.hashes();
    const r = await decoder.queue.run(() => native.decoderDecode(decoder.handle, frame, refs, hashes, conceal));
    const newRefs = [0, 1, 2].map((s) => r.references[s] ?? refs?.[s]) as unknown as Slots<Uint8Array>;
    const newHashes = [0, 1, 2].map((s) => r.hashes[s] ?? hashes?.[s]) as unknown as Slots<bigint>;
    if (newRefs.some((x) => x === undefined) || newHashes.some((x) => x === undefined)) {
      throw new Error(`${where}: frame left a reference slot of the initial state empty`);
    }
    return {
      picture: { width: from.width, height: from.height, data: r.picture },
      state: new Vp8State(from.width, from.height, newRefs, newHashes),
      keyFrame: r.keyFrame,
      quantizer: r.quantizer,
      concealed: r.concealed,
      timings: { reset: r.msReset, inject: r.msInject, decode: r.msDecode, extract: r.msExtract },
    };
  }

  const codec: Vp8Codec = {
    name: 'vp8',

    initialState(width: number, height: number): Vp8State {
      return initialVp8State(width, height);
    },

    async encode(state: CodecState, picture: Picture, quantizer: number): Promise<Vp8EncodeResult> {
      const from = asVp8State(state, 'encode');
      checkPicture(picture, from.width, from.height, 'encode');
      const level = levelForQuantizer(quantizer);
      const size = instancesFor(from.width, from.height);
      const instance = size.encoders[size.nextEncoder];
      size.nextEncoder = (size.nextEncoder + 1) % size.encoders.length;
      const refs = from.references();
      const hashes = from.hashes();
      const r = await instance.queue.run(() => native.encoderEncode(instance.handle, picture.data, refs, hashes, level));
      const newState = r.keyFrame || !refs || !hashes
        ? new Vp8State(from.width, from.height, [r.reference, r.reference, r.reference], [r.hash, r.hash, r.hash])
        : new Vp8State(from.width, from.height, [r.reference, refs[1], refs[2]], [r.hash, hashes[1], hashes[2]]);
      return {
        frame: r.frame,
        state: newState,
        quantizer: r.quantizer,
        keyFrame: r.keyFrame,
        throwawayEncodes: r.throwawayEncodes,
        timings: { inject: r.msInject, throwaway: r.msThrowaway, encode: r.msEncode, extract: r.msExtract },
      };
    },

    decode(state: CodecState, frame: Uint8Array): Promise<Vp8DecodeResult> {
      return decode(state, frame, false);
    },

    async close(): Promise<void> {
      closed = true;
      for (const size of sizes.values()) {
        for (const instance of [...size.encoders, size.decoder]) {
          await instance.queue.drain();
        }
        size.encoders.forEach((e) => native.encoderClose(e.handle));
        native.decoderClose(size.decoder.handle);
      }
      sizes.clear();
    },
  };
  if (native.errorConcealment()) {
    // A whole frame needs no concealment to decode from another state; a prefix does.
    codec.conceal = (state, received, frameLength) => decode(state, received, received.length < frameLength);
  }
  return codec;
}

