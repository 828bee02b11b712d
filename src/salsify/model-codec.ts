// A fast model of a functional video codec, for simulations: no pixels are
// coded, but frame sizes, state chaining and quality behave like VP8's.
//
// - Each picture is summarised by a grid of 16 x 9 luma samples (the pixel at
//   the centre of each cell), read one by one from a picture that offers
//   lumaAt (the synthetic scene's), so that its full frame is never rendered. Spatial complexity s is the mean absolute
//   difference between neighbouring samples, temporal complexity t the mean
//   absolute difference from the reference state's samples (both / 255).
// - Frame sizes follow tables measured with the real VP8 codec (libvpx through
//   the codec bridge, speed -8) on ../shared/video/FourPeople_1280x720_60.ivf
//   (`node --import tsx bench/salsify-model-calibration.ts`): bits per pixel of a key
//   frame and of an inter frame at quantizers 0, 10, ..., 110, 127,
//   interpolated linearly in log(bits) between them, times an activity factor
//   that is 1 for that clip (s = 0.1423, t = 0.0029 at 60 fps):
//     inter frame:  pixels x interBpp(q) / 8 x clamp((t / 0.0029)^0.31, 0.3, 4)
//     key frame:    pixels x keyBpp(q) / 8 x clamp(s / 0.1423, 0.5, 4)
//   never less than the frame's header. The exponent 0.31 makes the synthetic
//   scene (t = 0.016) come out 1.7 times FourPeople at quantizer 40, as VP8
//   codes it; on that scene the model is within a factor 0.65..1.25 of VP8 at
//   quantizers 20..127 (exact on the clip), and too small below 20, where
//   VP8 spends its bits on the scene's sensor noise.
// - Modelled SSIM (linear) of a frame: the clip's measured mean luma SSIM of
//   inter frames at that quantizer, interpolated linearly. It ignores the
//   scene: for the noisier synthetic scene VP8's SSIM is lower (0.91 against
//   0.98 at quantizer 40), so model-codec SSIM figures read like FourPeople's.
// - A state's id chains: hash(parent id, quantizer, samples). A frame names its
//   source and target state ids; decoding from any other state is rejected, as
//   is a frame whose result would not have the named target id.
// - Concealment (conceal(), as alfalfa's receiver decoded a frame it did not
//   receive whole, or from a state it did not hold): the result is a damaged
//   state that stands for the frame's target state and carries a damage d, a
//   loss of linear SSIM. d = CARRY x (the current state's d) + MISSING x (the
//   fraction of the frame's bytes missing) + (SKIP when the current state does
//   not stand for the frame's source: a whole frame between them is missing).
//   A frame decoded exactly starts again from d = 0. The constants are
//   measured on VP8 with libvpx's concealment (bench/salsify-concealment-calibration.ts).
// The decoded Picture is a shared all-zero buffer of the right size (no pixels
// are reconstructed): measure quality with `modelledSsim(frame, state)`.
import type { CodecState, DecodeResult, EncodeResult, FunctionalCodec, Picture } from '../codec-bridge/types.ts';
import { isSampledPicture } from '../codec-bridge/video/sampled-picture.ts';
import { hash64Hex } from './hash64.ts';

const GRID_W = 16;
const GRID_H = 9;
const SAMPLES = GRID_W * GRID_H;
const MAGIC = [0x4d, 0x44, 0x4c, 0x31]; // "MDL1"
const HEADER_BYTES = 28 + SAMPLES;

class ModelState implements CodecState {
  readonly byteLength: number;
  constructor(
    readonly id: string,
    readonly width: number,
    readonly height: number,
    /** The reference picture's samples; empty for the initial state. */
    readonly samples: Uint8Array,
    /** Linear SSIM lost to concealment (0: decoded exactly). */
    readonly damage = 0,
    /** The encoder's state this one stands for (itself unless damaged). */
    readonly standsFor = id,
  ) {
    this.byteLength = 20 + samples.length;
  }

  serialize(): Uint8Array {
    const out = new Uint8Array(this.byteLength);
    const view = new DataView(out.buffer);
    for (let i = 0; i < 4; i++) view.setUint32(i * 4, parseInt(this.id.slice(i * 4, i * 4 + 4), 16));
    view.setUint16(16, this.width);
    view.setUint16(18, this.height);
    out.set(this.samples, 20);
    return out;
  }
}

/** The grid's sample positions for a width x height picture: x of each column, y of each row. */
function gridPositions(width: number, height: number): { xs: Int32Array; ys: Int32Array } {
  const xs = new Int32Array(GRID_W);
  const ys = new Int32Array(GRID_H);
  for (let gx = 0; gx < GRID_W; gx++) xs[gx] = Math.min(width - 1, Math.floor(((gx + 0.5) * width) / GRID_W));
  for (let gy = 0; gy < GRID_H; gy++) ys[gy] = Math.min(height - 1, Math.floor(((gy + 0.5) * height) / GRID_H));
  return { xs, ys };
}

/**
 * The picture's luma at the centre of each grid cell. A SampledPicture is
 * read sample by sample (its full frame is never produced); any other
 * picture from its data.
 */
export function sampleGrid(picture: Picture): Uint8Array {
  const { width, height } = picture;
  const { xs, ys } = gridPositions(width, height);
  const out = new Uint8Array(SAMPLES);
  if (isSampledPicture(picture)) {
    for (let gy = 0; gy < GRID_H; gy++) for (let gx = 0; gx < GRID_W; gx++) out[gy * GRID_W + gx] = picture.lumaAt(xs[gx], ys[gy]);
    return out;
  }
  const data = picture.data;
  for (let gy = 0; gy < GRID_H; gy++) for (let gx = 0; gx < GRID_W; gx++) out[gy * GRID_W + gx] = data[ys[gy] * width + xs[gx]];
  return out;
}

export function spatialComplexity(s: Uint8Array): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < GRID_H; y++) {
    for (let x = 0; x < GRID_W; x++) {
      const v = s[y * GRID_W + x];
      if (x + 1 < GRID_W) { sum += Math.abs(v - s[y * GRID_W + x + 1]); n++; }
      if (y + 1 < GRID_H) { sum += Math.abs(v - s[(y + 1) * GRID_W + x]); n++; }
    }
  }
  return sum / n / 255;
}

export function temporalComplexity(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < SAMPLES; i++) sum += Math.abs(a[i] - b[i]);
  return sum / SAMPLES / 255;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

const TABLE_Q = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 127];
const KEY_BPP = [1.7141, 0.7683, 0.5659, 0.4433, 0.3719, 0.3115, 0.2623, 0.2144, 0.188, 0.1574, 0.1381, 0.1188, 0.0887];
const INTER_BPP = [0.3955, 0.094, 0.0523, 0.0328, 0.0253, 0.0204, 0.0162, 0.0127, 0.0107, 0.0087, 0.0076, 0.0063, 0.0046];
const SSIM = [0.9986, 0.9932, 0.9889, 0.9837, 0.9799, 0.974, 0.9667, 0.9557, 0.9464, 0.9304, 0.9183, 0.903, 0.8678];
const REF_SPATIAL = 0.1423;
const REF_TEMPORAL = 0.0029;

function interpolate(table: readonly number[], q: number, logScale: boolean): number {
  let i = 1;
  while (i < TABLE_Q.length - 1 && q > TABLE_Q[i]) i++;
  const f = clamp((q - TABLE_Q[i - 1]) / (TABLE_Q[i] - TABLE_Q[i - 1]), 0, 1);
  const lo = table[i - 1], hi = table[i];
  return logScale ? Math.exp(Math.log(lo) + f * (Math.log(hi) - Math.log(lo))) : lo + f * (hi - lo);
}

/** Modelled size in bytes of a frame (before the header floor). */
export function modelFrameBytes(width: number, height: number, quantizer: number, keyFrame: boolean, spatial: number, temporal: number): number {
  const pixels = width * height;
  if (keyFrame) return Math.round(((pixels * interpolate(KEY_BPP, quantizer, true)) / 8) * clamp(spatial / REF_SPATIAL, 0.5, 4));
  return Math.round(((pixels * interpolate(INTER_BPP, quantizer, true)) / 8) * clamp((temporal / REF_TEMPORAL) ** 0.31, 0.3, 4));
}

/** Modelled linear SSIM of a frame coded at `quantizer`. */
export function modelSsim(quantizer: number): number {
  return interpolate(SSIM, quantizer, false);
}

/**
 * The concealment rule's constants, in linear SSIM, measured with libvpx's
 * error concealment on FourPeople 720p at quantizers 30 and 60
 * (`node --import tsx bench/salsify-concealment-calibration.ts`; docs/salsify.md
 * gives the figures): MISSING per whole frame of bytes missing (a cut frame
 * keeps its modes and motion vectors, so little is lost), CARRY the share of a
 * damage still there one frame later (VP8 refreshes nothing by itself), SKIP
 * for a frame decoded one frame ahead of its source.
 */
export const CONCEALMENT = { missing: 0.0031, carry: 0.967, skip: 0.0101 } as const;

/** The damage of a concealed decode (see the rule above). */
export function concealedDamage(previousDamage: number, missingFraction: number, skipped: boolean): number {
  return CONCEALMENT.carry * previousDamage + CONCEALMENT.missing * clamp(missingFraction, 0, 1) + (skipped ? CONCEALMENT.skip : 0);
}

function childId(parentId: string, quantizer: number, samples: Uint8Array): string {
  const buf = new Uint8Array(17 + samples.length);
  for (let i = 0; i < 16; i++) buf[i] = parentId.charCodeAt(i);
  buf[16] = quantizer;
  buf.set(samples, 17);
  return hash64Hex(buf);
}

/** Pseudo-random bytes (xorshift32), generated once: the model's stand-in for coded residual. */
const FILLER = (() => {
  const bytes = new Uint8Array(1 << 16);
  let x = 0x9e3779b9 | 0;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
})();

/**
 * Fills frame[from..] with deterministic filler standing in for the coded
 * residual: FILLER from an offset chosen by `key`, repeated. Copying it costs
 * far less than generating bytes one by one, and nothing reads the filler
 * but the checksums.
 */
function fillResidual(frame: Uint8Array, from: number, key: number): void {
  let offset = (key >>> 0) % FILLER.length;
  for (let i = from; i < frame.length; ) {
    const n = Math.min(FILLER.length - offset, frame.length - i);
    frame.set(FILLER.subarray(offset, offset + n), i);
    i += n;
    offset = 0;
  }
}

function checkIdBytes(view: DataView, offset: number): string {
  return view.getUint32(offset).toString(16).padStart(8, '0') + view.getUint32(offset + 4).toString(16).padStart(8, '0');
}

/** What a model frame's header says (throws on a frame that is not a model frame). */
export interface ModelFrameInfo {
  readonly keyFrame: boolean;
  readonly quantizer: number;
  readonly width: number;
  readonly height: number;
  readonly sourceStateId: string;
  readonly targetStateId: string;
  readonly samples: Uint8Array;
}

export function inspectModelFrame(frame: Uint8Array): ModelFrameInfo {
  if (frame.length < HEADER_BYTES) throw new Error(`model frame of ${frame.length} bytes is shorter than its ${HEADER_BYTES}-byte header`);
  for (let i = 0; i < 4; i++) if (frame[i] !== MAGIC[i]) throw new Error('not a model-codec frame (bad magic)');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const flags = frame[4];
  const quantizer = frame[5];
  if (flags > 1) throw new Error(`model frame has unknown flags 0x${flags.toString(16)}`);
  if (quantizer > 127) throw new Error(`model frame quantizer ${quantizer} is outside 0..127`);
  const n = view.getUint16(26);
  if (n !== SAMPLES) throw new Error(`model frame carries ${n} samples, expected ${SAMPLES}`);
  return {
    keyFrame: flags === 1,
    quantizer,
    width: view.getUint16(6),
    height: view.getUint16(8),
    sourceStateId: checkIdBytes(view, 10),
    targetStateId: checkIdBytes(view, 18),
    samples: frame.subarray(28, 28 + SAMPLES),
  };
}

export interface ModelCodec extends FunctionalCodec {
  /** The modelled SSIM (linear) of a frame this codec produced, shown from `state` (the decoded state: lower when damaged). */
  modelledSsim(frame: Uint8Array, state?: CodecState): number;
  conceal(state: CodecState, received: Uint8Array, frameLength: number): Promise<DecodeResult & { concealed: boolean }>;
}

export function createModelCodec(): ModelCodec {
  const blankPictures = new Map<string, Picture>();
  const blank = (width: number, height: number): Picture => {
    const key = `${width}x${height}`;
    let p = blankPictures.get(key);
    if (!p) {
      p = { width, height, data: new Uint8Array(width * height + 2 * Math.ceil(width / 2) * Math.ceil(height / 2)) };
      blankPictures.set(key, p);
    }
    return p;
  };
  const asModelState = (state: CodecState): ModelState => {
    if (!(state instanceof ModelState)) throw new TypeError(`the model codec cannot use a state it did not create (id ${state.id})`);
    return state;
  };

  return {
    name: 'model',
    initialState(width, height) {
      if (!(Number.isInteger(width) && width > 0 && width <= 0xffff && Number.isInteger(height) && height > 0 && height <= 0xffff)) {
        throw new RangeError(`model codec picture size must be integers in 1..65535, got ${width}x${height}`);
      }
      const seed = new Uint8Array(4);
      new DataView(seed.buffer).setUint16(0, width);
      new DataView(seed.buffer).setUint16(2, height);
      return new ModelState(hash64Hex(seed), width, height, new Uint8Array(0));
    },

    async encode(state, picture, quantizer) {
      const s = asModelState(state);
      if (!(Number.isInteger(quantizer) && quantizer >= 0 && quantizer <= 127)) throw new RangeError(`quantizer must be an integer in 0..127, got ${quantizer}`);
      if (picture.width !== s.width || picture.height !== s.height) {
        throw new RangeError(`picture is ${picture.width}x${picture.height} but the codec state is ${s.width}x${s.height}`);
      }
      // A sampled picture is read sample by sample: its data (rendered on first access) is not needed.
      const expectedBytes = picture.width * picture.height + 2 * Math.ceil(picture.width / 2) * Math.ceil(picture.height / 2);
      if (!isSampledPicture(picture) && picture.data.length < expectedBytes) {
        throw new RangeError(`I420 picture ${picture.width}x${picture.height} needs ${expectedBytes} bytes, got ${picture.data.length}`);
      }
      const samples = sampleGrid(picture);
      const keyFrame = s.samples.length === 0;
      const spatial = spatialComplexity(samples);
      const temporal = keyFrame ? 0 : temporalComplexity(samples, s.samples);
      const size = Math.max(HEADER_BYTES, modelFrameBytes(s.width, s.height, quantizer, keyFrame, spatial, temporal));
      const target = new ModelState(childId(s.id, quantizer, samples), s.width, s.height, samples);
      const frame = new Uint8Array(size);
      const view = new DataView(frame.buffer);
      frame.set(MAGIC, 0);
      frame[4] = keyFrame ? 1 : 0;
      frame[5] = quantizer;
      view.setUint16(6, s.width);
      view.setUint16(8, s.height);
      view.setUint32(10, parseInt(s.id.slice(0, 8), 16));
      view.setUint32(14, parseInt(s.id.slice(8), 16));
      view.setUint32(18, parseInt(target.id.slice(0, 8), 16));
      view.setUint32(22, parseInt(target.id.slice(8), 16));
      view.setUint16(26, SAMPLES);
      frame.set(samples, 28);
      fillResidual(frame, HEADER_BYTES, parseInt(target.id.slice(8), 16));
      const result: EncodeResult = { frame, state: target, quantizer, keyFrame };
      return result;
    },

    async decode(state, frame) {
      const s = asModelState(state);
      const info = inspectModelFrame(frame);
      if (info.width !== s.width || info.height !== s.height) throw new Error(`frame is ${info.width}x${info.height} but the decoder state is ${s.width}x${s.height}`);
      if (info.sourceStateId !== s.id) throw new Error(`frame was encoded from state ${info.sourceStateId}, cannot decode it from state ${s.id}`);
      if (info.keyFrame !== (s.samples.length === 0)) throw new Error(`frame's key-frame flag (${info.keyFrame}) does not match its source state`);
      const samples = info.samples.slice();
      const target = new ModelState(childId(s.id, info.quantizer, samples), s.width, s.height, samples);
      if (target.id !== info.targetStateId) throw new Error(`frame decodes to state ${target.id}, but its header names ${info.targetStateId}: corrupted`);
      const result: DecodeResult = { picture: blank(s.width, s.height), state: target };
      return result;
    },

    async conceal(state, received, frameLength) {
      const s = asModelState(state);
      const info = inspectModelFrame(received);
      if (info.width !== s.width || info.height !== s.height) throw new Error(`frame is ${info.width}x${info.height} but the decoder state is ${s.width}x${s.height}`);
      if (!info.keyFrame && s.samples.length === 0) throw new Error('an inter frame cannot be decoded from the initial state (no reference picture)');
      if (!(Number.isInteger(frameLength) && frameLength >= received.length)) throw new RangeError(`frame length ${frameLength} is less than the ${received.length} bytes received`);
      const missing = 1 - received.length / frameLength;
      const skipped = !info.keyFrame && s.standsFor !== info.sourceStateId;
      const damage = info.keyFrame ? CONCEALMENT.missing * missing : concealedDamage(s.damage, missing, skipped);
      const samples = info.samples.slice();
      if (damage === 0) {
        // The whole frame, from a state equal to its source: an exact decode.
        const target = new ModelState(childId(info.sourceStateId, info.quantizer, samples), s.width, s.height, samples);
        return { picture: blank(s.width, s.height), state: target, concealed: false };
      }
      const seed = new Uint8Array(40);
      for (let i = 0; i < 16; i++) seed[i] = s.id.charCodeAt(i);
      new DataView(seed.buffer).setFloat64(16, damage);
      new DataView(seed.buffer).setUint32(24, received.length);
      const damaged = new ModelState(childId(hash64Hex(seed), info.quantizer, samples), s.width, s.height, samples, damage, info.targetStateId);
      return { picture: blank(s.width, s.height), state: damaged, concealed: true };
    },

    modelledSsim(frame, state) {
      const info = inspectModelFrame(frame);
      const damage = state instanceof ModelState ? state.damage : 0;
      return Math.max(0, modelSsim(info.quantizer) - damage);
    },

    async close() {},
  };
}
