// The VP8 codec state as an immutable value: the three reference pictures
// (last, golden, alt-ref) at macroblock-aligned size, each with a content
// hash. Slots with equal contents share one buffer. A state's id is a hash of
// its size and the three content hashes, so equal states have equal ids in
// every process. The initial state holds no pictures.
import { nativeVp8 } from './native.ts';
import { checkDimensions, referenceBytes } from './picture.ts';
import type { CodecState } from './types.ts';

export type Slots<T> = readonly [T, T, T];

export const SLOT_NAMES: Slots<string> = ['last', 'golden', 'alt-ref'];

const MAGIC = 0x53385056; // "VP8S" little-endian
const FORMAT_VERSION = 1;
const HEADER_BYTES = 20;
const CHECKSUM_BYTES = 8;
const NO_BUFFER = 0xff;

export class Vp8State implements CodecState {
  readonly id: string;
  readonly byteLength: number;
  readonly #references: Slots<Uint8Array> | null;
  readonly #hashes: Slots<bigint> | null;

  /** Use initialVp8State, the codec or deserializeState; references are never modified afterwards. */
  constructor(
    readonly width: number,
    readonly height: number,
    references: Slots<Uint8Array> | null,
    hashes: Slots<bigint> | null,
  ) {
    this.#references = references;
    this.#hashes = hashes;
    const descriptor = new DataView(new ArrayBuffer(32));
    descriptor.setUint32(0, width, true);
    descriptor.setUint32(4, height, true);
    hashes?.forEach((h, i) => descriptor.setBigUint64(8 + 8 * i, h, true));
    const id = nativeVp8().hash(new Uint8Array(descriptor.buffer), 0x56503853n);
    this.id = id.toString(16).padStart(16, '0');
    this.byteLength = hashes ? new Set(hashes).size * referenceBytes(width, height) : 0;
    Object.freeze(this);
  }

  /** True for the state before any frame (encoding from it gives a key frame). */
  get isInitial(): boolean {
    return this.#references === null;
  }

  /** @internal The reference pictures (do not modify), or null for the initial state. */
  references(): Slots<Uint8Array> | null {
    return this.#references;
  }

  /** @internal The content hash of each reference, or null for the initial state. */
  hashes(): Slots<bigint> | null {
    return this.#hashes;
  }

  serialize(): Uint8Array {
    const refs = this.#references;
    const hashes = this.#hashes;
    const distinct: number[] = []; // slot index holding each distinct picture
    const slotMap = [NO_BUFFER, NO_BUFFER, NO_BUFFER];
    if (refs && hashes) {
      for (let s = 0; s < 3; s++) {
        const earlier = distinct.findIndex((d) => hashes[d] === hashes[s]);
        if (earlier >= 0) slotMap[s] = earlier;
        else {
          slotMap[s] = distinct.length;
          distinct.push(s);
        }
      }
    }
    const refBytes = referenceBytes(this.width, this.height);
    const out = new Uint8Array(HEADER_BYTES + distinct.length * refBytes + CHECKSUM_BYTES);
    const view = new DataView(out.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint16(4, FORMAT_VERSION, true);
    out[6] = distinct.length;
    out.set(slotMap, 7);
    view.setUint32(12, this.width, true);
    view.setUint32(16, this.height, true);
    distinct.forEach((slot, i) => out.set(refs![slot], HEADER_BYTES + i * refBytes));
    const checksumAt = out.length - CHECKSUM_BYTES;
    view.setBigUint64(checksumAt, nativeVp8().hash(out.subarray(0, checksumAt)), true);
    return out;
  }
}

/** The state before any frame at the given size. */
export function initialVp8State(width: number, height: number): Vp8State {
  checkDimensions(width, height, 'initialState');
  return new Vp8State(width, height, null, null);
}

/** Reads a state written by `serialize()`, checking every field and the checksum. */
export function deserializeState(bytes: Uint8Array): Vp8State {
  const where = 'deserializeState';
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${where}: expected a Uint8Array`);
  if (bytes.length < HEADER_BYTES + CHECKSUM_BYTES) {
    throw new RangeError(`${where}: ${bytes.length} bytes is shorter than the ${HEADER_BYTES + CHECKSUM_BYTES}-byte minimum`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== MAGIC) throw new Error(`${where}: bad magic 0x${magic.toString(16)} (not a VP8 codec state)`);
  const version = view.getUint16(4, true);
  if (version !== FORMAT_VERSION) throw new Error(`${where}: format version ${version} is not supported (expected ${FORMAT_VERSION})`);
  const count = bytes[6];
  const slotMap = [bytes[7], bytes[8], bytes[9]];
  if (bytes[10] !== 0 || bytes[11] !== 0) throw new Error(`${where}: reserved bytes 10-11 must be zero`);
  const width = view.getUint32(12, true);
  const height = view.getUint32(16, true);
  checkDimensions(width, height, where);
  if (count > 3) throw new Error(`${where}: picture count ${count} is more than 3`);
  const refBytes = referenceBytes(width, height);
  const expected = HEADER_BYTES + count * refBytes + CHECKSUM_BYTES;
  if (bytes.length !== expected) {
    throw new RangeError(`${where}: ${bytes.length} bytes, expected ${expected} for ${count} picture(s) at ${width}x${height}`);
  }
  if (count === 0 && slotMap.some((m) => m !== NO_BUFFER)) throw new Error(`${where}: slot map [${slotMap}] must be empty (255) when no pictures are stored`);
  if (count > 0) {
    slotMap.forEach((m, s) => {
      if (m >= count) throw new Error(`${where}: slot ${SLOT_NAMES[s]} refers to picture ${m} of ${count}`);
    });
    for (let i = 0; i < count; i++) {
      if (!slotMap.includes(i)) throw new Error(`${where}: picture ${i} is used by no slot`);
    }
  }
  const native = nativeVp8();
  const checksumAt = bytes.length - CHECKSUM_BYTES;
  if (native.hash(bytes.subarray(0, checksumAt)) !== view.getBigUint64(checksumAt, true)) {
    throw new Error(`${where}: checksum mismatch (corrupted state)`);
  }
  if (count === 0) return new Vp8State(width, height, null, null);
  const pictures = Array.from({ length: count }, (_, i) => bytes.slice(HEADER_BYTES + i * refBytes, HEADER_BYTES + (i + 1) * refBytes));
  const pictureHashes = pictures.map((p) => native.hash(p));
  const refs = slotMap.map((m) => pictures[m]) as unknown as Slots<Uint8Array>;
  const hashes = slotMap.map((m) => pictureHashes[m]) as unknown as Slots<bigint>;
  return new Vp8State(width, height, refs, hashes);
}
