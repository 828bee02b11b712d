// I420 picture sizes and checks used by the codec bridge.
import type { Picture } from './types.ts';
import { checkDimensions as checkDimensionsUpTo, i420Size } from './video/i420.ts';

/** VP8's largest frame side (14-bit size fields). */
export const VP8_MAX_DIMENSION = 16383;

/** Bytes of an I420 picture: Y at full size, U and V at ceil(w/2) x ceil(h/2). */
export const i420Bytes = i420Size;

/** Bytes of one reference picture: I420 at the macroblock-aligned size (sides rounded up to 16). */
export function referenceBytes(width: number, height: number): number {
  const aw = (width + 15) & ~15;
  const ah = (height + 15) & ~15;
  return (aw * ah * 3) / 2;
}

/** Throws a RangeError naming `where` unless width and height are within VP8's limits. */
export function checkDimensions(width: number, height: number, where: string): void {
  checkDimensionsUpTo(width, height, where, VP8_MAX_DIMENSION);
}

/** Throws a clear error unless `picture` is a `width` x `height` I420 picture. */
export function checkPicture(picture: Picture, width: number, height: number, where: string): void {
  if (picture === null || typeof picture !== 'object' || !(picture.data instanceof Uint8Array)) {
    throw new TypeError(`${where}: expected a picture { width, height, data: Uint8Array }`);
  }
  if (picture.width !== width || picture.height !== height) {
    throw new RangeError(`${where}: picture is ${picture.width}x${picture.height}, expected ${width}x${height}`);
  }
  const bytes = i420Bytes(width, height);
  if (picture.data.length !== bytes) {
    throw new RangeError(`${where}: picture data has ${picture.data.length} bytes, expected ${bytes} (I420 ${width}x${height})`);
  }
}

/** The visible part of a macroblock-aligned reference, as a picture. */
export function cropReference(reference: Uint8Array, width: number, height: number): Picture {
  const aw = (width + 15) & ~15;
  const ah = (height + 15) & ~15;
  const cw = (width + 1) >> 1;
  const ch = (height + 1) >> 1;
  const data = new Uint8Array(i420Bytes(width, height));
  let out = 0;
  for (let y = 0; y < height; y++, out += width) data.set(reference.subarray(y * aw, y * aw + width), out);
  for (const base of [aw * ah, aw * ah + (aw / 2) * (ah / 2)]) {
    for (let y = 0; y < ch; y++, out += cw) data.set(reference.subarray(base + y * (aw / 2), base + y * (aw / 2) + cw), out);
  }
  return { width, height, data };
}
