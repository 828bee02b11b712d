// Resizing an I420 picture, each plane separably by area averaging: a
// destination sample is the mean of the source samples its footprint covers,
// each weighted by the fraction covered. It serves both ways the bench needs:
// shrinking the 720p clip to the call's size, and bringing a frame Chromium
// sent at a lower resolution back to the source's size for SSIM.
import { chromaHeight, chromaWidth, i420Size } from '../codec-bridge/video/i420.ts';
import type { Picture } from '../codec-bridge/types.ts';

interface Taps {
  readonly first: Int32Array;
  readonly count: Int32Array;
  readonly weights: Float32Array[];
}

/** For each of `to` destination samples, the source samples (of `from`) it covers and their weights (summing to 1). */
function taps(from: number, to: number): Taps {
  const first = new Int32Array(to);
  const count = new Int32Array(to);
  const weights: Float32Array[] = [];
  const step = from / to;
  for (let i = 0; i < to; i++) {
    // Upscaling, a footprint narrower than one source sample is widened to one, centred: a linear blend.
    const width = Math.max(step, 1);
    const centre = (i + 0.5) * step;
    const lo = Math.max(0, centre - width / 2);
    const hi = Math.min(from, centre + width / 2);
    const a = Math.floor(lo);
    const b = Math.min(from, Math.ceil(hi));
    const w = new Float32Array(b - a);
    let total = 0;
    for (let s = a; s < b; s++) {
      const cover = Math.min(hi, s + 1) - Math.max(lo, s);
      w[s - a] = cover;
      total += cover;
    }
    for (let k = 0; k < w.length; k++) w[k] /= total;
    first[i] = a;
    count[i] = w.length;
    weights.push(w);
  }
  return { first, count, weights };
}

function resizePlane(src: Uint8Array, srcOffset: number, sw: number, sh: number, dst: Uint8Array, dstOffset: number, dw: number, dh: number): void {
  const h = taps(sw, dw);
  const v = taps(sh, dh);
  const rows = new Float32Array(sh * dw);
  for (let y = 0; y < sh; y++) {
    const row = srcOffset + y * sw;
    for (let x = 0; x < dw; x++) {
      const a = h.first[x];
      const w = h.weights[x];
      let sum = 0;
      for (let k = 0; k < w.length; k++) sum += src[row + a + k] * w[k];
      rows[y * dw + x] = sum;
    }
  }
  for (let y = 0; y < dh; y++) {
    const a = v.first[y];
    const w = v.weights[y];
    for (let x = 0; x < dw; x++) {
      let sum = 0;
      for (let k = 0; k < w.length; k++) sum += rows[(a + k) * dw + x] * w[k];
      dst[dstOffset + y * dw + x] = Math.min(255, Math.max(0, Math.round(sum)));
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
