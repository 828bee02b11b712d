// A picture that can be read one luma sample at a time without producing the
// whole frame. A video source whose frames are costly to produce in full (the
// synthetic scene renders 1.4 MB per 720p frame) returns such pictures: their
// `data` is produced on first access (and kept), while `lumaAt(x, y)` gives
// the luma sample that `data` holds at (x, y), at the cost of that one sample.
// A consumer that needs only a few samples (the model codec reads 144) checks
// for the capability with isSampledPicture and never touches `data`.
import type { Picture } from '../types.ts';

export interface SampledPicture extends Picture {
  /** The luma sample at column x, row y (integers inside the picture): equal to data[y * width + x]. */
  lumaAt(x: number, y: number): number;
}

export function isSampledPicture(picture: Picture): picture is SampledPicture {
  return typeof (picture as Partial<SampledPicture>).lumaAt === 'function';
}

/**
 * A SampledPicture of width x height whose `data` comes from `render()` on
 * first access; until then lumaAt(x, y) computes single samples with
 * `lumaAt`, afterwards it reads them from `data`. `data` is an own, enumerable property, so that spreading or
 * cloning the picture copies the pixels like any other Picture's.
 */
export function lazyPicture(width: number, height: number, render: () => Uint8Array, lumaAt: (x: number, y: number) => number): SampledPicture {
  let data: Uint8Array | undefined;
  // Once the pixels exist (and the caller may have changed them), samples come from them.
  const picture = { width, height, lumaAt: (x: number, y: number) => (data === undefined ? lumaAt(x, y) : data[y * width + x]) } as SampledPicture;
  Object.defineProperty(picture, 'data', {
    enumerable: true,
    get: () => (data ??= render()),
  });
  return picture;
}
