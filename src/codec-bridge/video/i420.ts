// Sizes and checks for I420 pictures (8-bit 4:2:0: a Y plane of width x height,
// then U and V planes of ceil(width/2) x ceil(height/2)).
import type { Picture } from '../types.ts';

/** The largest width or height the video readers accept (VP8's limit is 16383). */
export const MAX_DIMENSION = 16384;

export function chromaWidth(width: number): number {
  return (width + 1) >> 1;
}

export function chromaHeight(height: number): number {
  return (height + 1) >> 1;
}

/** Bytes of one I420 picture of the given size. */
export function i420Size(width: number, height: number): number {
  return width * height + 2 * chromaWidth(width) * chromaHeight(height);
}

/** Throws a RangeError naming `where` unless width and height are integers in 1..max (default MAX_DIMENSION). */
export function checkDimensions(width: number, height: number, where: string, max = MAX_DIMENSION): void {
  for (const [name, value] of [['width', width], ['height', height]] as const) {
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw new RangeError(`${where}: ${name} must be an integer in 1..${max}, got ${value}`);
    }
  }
}

/** Throws unless `picture` is `expectedWidth` x `expectedHeight` with a data buffer of exactly the I420 size. */
export function checkPicture(picture: Picture, expectedWidth: number, expectedHeight: number, where: string): void {
  if (picture === null || typeof picture !== 'object' || !(picture.data instanceof Uint8Array)) {
    throw new TypeError(`${where}: expected a picture { width, height, data: Uint8Array }`);
  }
  if (picture.width !== expectedWidth || picture.height !== expectedHeight) {
    throw new RangeError(
      `${where}: picture is ${picture.width}x${picture.height}, expected ${expectedWidth}x${expectedHeight}`,
    );
  }
  const size = i420Size(expectedWidth, expectedHeight);
  if (picture.data.length !== size) {
    throw new RangeError(`${where}: picture data is ${picture.data.length} bytes, expected ${size} (I420 ${expectedWidth}x${expectedHeight})`);
  }
}

/** A copy of `bytes` in a new plain Uint8Array (a Buffer's slice() would share memory). */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}
