// SSIM between two I420 pictures, computed natively the way ffmpeg's ssim
// filter does (8x8 windows on a 4-pixel grid; agrees with `ffmpeg -lavfi ssim`).
import { nativeVp8 } from './native.ts';
import { checkPicture } from './picture.ts';
import type { Picture } from './types.ts';
export { ssimToDb } from './ssim-db.ts';

export interface SsimResult {
  /** Luma SSIM. */
  readonly y: number;
  readonly u: number;
  readonly v: number;
  /** ffmpeg's "All": planes weighted by their pixel counts (4:1:1 for 4:2:0). */
  readonly all: number;
  /** 0.8 Y + 0.1 U + 0.1 V. */
  readonly weighted: number;
}

function check(a: Picture, b: Picture, where: string): void {
  if (a === null || typeof a !== 'object') throw new TypeError(`${where}: first argument is not a picture`);
  checkPicture(a, a.width, a.height, `${where} (first picture)`);
  checkPicture(b, a.width, a.height, `${where} (second picture)`);
}

function result(width: number, height: number, [y, u, v]: [number, number, number]): SsimResult {
  const luma = width * height;
  const chroma = ((width + 1) >> 1) * ((height + 1) >> 1);
  return { y, u, v, all: (y * luma + (u + v) * chroma) / (luma + 2 * chroma), weighted: 0.8 * y + 0.1 * u + 0.1 * v };
}

/** SSIM of `b` against `a` (same size), on the calling thread (about 2 ms at 720p). */
export function ssim(a: Picture, b: Picture): SsimResult {
  check(a, b, 'ssim');
  return result(a.width, a.height, nativeVp8().ssim(a.data, b.data, a.width, a.height));
}

/** As `ssim`, computed on Node's thread pool. */
export async function ssimAsync(a: Picture, b: Picture): Promise<SsimResult> {
  check(a, b, 'ssimAsync');
  return result(a.width, a.height, await nativeVp8().ssimAsync(a.data, b.data, a.width, a.height));
}
