// Resizing an I420 picture, each plane separably by area averaging: a
// destination sample is the mean of the source samples its footprint covers,
// each weighted by the fraction covered. It serves both ways the bench needs:
// shrinking the 720p clip to the call's size, and bringing a frame Chromium
// sent at a lower resolution back to the source's size for SSIM.
import { chromaHeight, chromaWidth, i420Size } from '../codec-bridge/video/i420.ts';
import type { Picture } from '../codec-bridge/types.ts';

interface Taps {
  /** First source sample of each destination sample. */
  readonly first: Int32Array;
  /** Taps per destination sample (the same for all; unused taps weigh 0). */
  readonly size: number;
  /** weights[i * size + k]: the weight of source sample first[i] + k. */
  readonly weights: Float32Array;
}

/** For each of `to` destination samples, the source samples (of `from`) it covers and their weights (summing to 1). */
function taps(from: number, to: number): Taps {
  const step = from / to;
  // Upscaling, a footprint narrower than one source sample is widened to one, centred: a linear blend.
  const width = Math.max(step, 1);
  const size = Math.ceil(width) + 1;
  const first = new Int32Array(to);
  const weights = new Float32Array(to * size);
  for (let i = 0; i < to; i++) {
    const centre = (i + 0.5) * step;
    const lo = Math.max(0, centre - width / 2);
    const hi = Math.min(from, centre + width / 2);
    const a = Math.min(Math.floor(lo), from - size < 0 ? 0 : from - size);
    let total = 0;
    for (let k = 0; k < size; k++) {
      const s = a + k;
      const cover = s < from ? Math.max(0, Math.min(hi, s + 1) - Math.max(lo, s)) : 0;
      weights[i * size + k] = cover;
      total += cover;
    }
    for (let k = 0; k < size; k++) weights[i * size + k] /= total;
    first[i] = a;
  }
  return { first, size, weights };
}

/** Halving exactly (720p to 360p): the mean of each 2x2 block, rounded; the same as the general path, faster. */
function halvePlane(src: Uint8Array, srcOffset: number, sw: number, dst: Uint8Array, dstOffset: number, dw: number, dh: number): void {
  for (let y = 0; y < dh; y++) {
    const top = srcOffset + 2 * y * sw;
    const bottom = top + sw;
    const out = dstOffset + y * dw;
    for (let x = 0; x < dw; x++) {
      const i = 2 * x;
      dst[out + x] = (src[top + i] + src[top + i + 1] + src[bottom + i] + src[bottom + i + 1] + 2) >> 2;
    }
  }
}

function resizePlane(src: Uint8Array, srcOffset: number, sw: number, sh: number, dst: Uint8Array, dstOffset: number, dw: number, dh: number): void {
  if (sw === 2 * dw && sh === 2 * dh) return halvePlane(src, srcOffset, sw, dst, dstOffset, dw, dh);
  const h = taps(sw, dw);
  const v = taps(sh, dh);
  const rows = new Float32Array(sh * dw);
  const hs = h.size;
  for (let y = 0; y < sh; y++) {
    const row = srcOffset + y * sw;
    const out = y * dw;
    for (let x = 0; x < dw; x++) {
      const a = row + h.first[x];
      const w = x * hs;
      let sum = 0;
      for (let k = 0; k < hs; k++) sum += src[a + k] * h.weights[w + k];
      rows[out + x] = sum;
    }
  }
  const vs = v.size;
  const acc = new Float32Array(dw);
  for (let y = 0; y < dh; y++) {
    acc.fill(0);
    const a = v.first[y];
    for (let k = 0; k < vs; k++) {
      const weight = v.weights[y * vs + k];
      if (weight === 0) continue;
      const row = (a + k) * dw;
      for (let x = 0; x < dw; x++) acc[x] += rows[row + x] * weight;
    }
    const out = dstOffset + y * dw;
    for (let x = 0; x < dw; x++) {
      const value = Math.round(acc[x]);
      dst[out + x] = value < 0 ? 0 : value > 255 ? 255 : value;
    }
  }
}

/** `picture` resized to width x height (a copy, even when the size is unchanged). */
export function resizePicture(picture: Picture, width: number, height: number): Picture {
  if (picture.width === width && picture.height === height) return { width, height, data: picture.data.slice() };
  const data = new Uint8Array(i420Size(width, height));
  const { width: sw, height: sh } = picture;
  resizePlane(picture.data, 0, sw, sh, data, 0, width, height);
  const scw = chromaWidth(sw);
  const sch = chromaHeight(sh);
  const dcw = chromaWidth(width);
  const dch = chromaHeight(height);
  resizePlane(picture.data, sw * sh, scw, sch, data, width * height, dcw, dch);
  resizePlane(picture.data, sw * sh + scw * sch, scw, sch, data, width * height + dcw * dch, dcw, dch);
  return { width, height, data };
}
