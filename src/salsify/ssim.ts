// SSIM of two pictures' luma planes, as libvpx's tools compute it: 8x8 windows
// stepped by 4 pixels, unweighted, with C1 = (0.01 x 255)^2 and
// C2 = (0.03 x 255)^2, averaged over all windows. Luma only (the chroma planes
// are not used); the figure is linear (1 = identical).
// The window statistics are assembled from 4x4 block sums, so each pixel is
// read once.
import type { Picture } from '../codec-bridge/types.ts';

const C1 = (0.01 * 255) ** 2;
const C2 = (0.03 * 255) ** 2;

export function lumaSsim(a: Picture, b: Picture): number {
  if (a.width !== b.width || a.height !== b.height) throw new RangeError(`SSIM needs pictures of one size, got ${a.width}x${a.height} and ${b.width}x${b.height}`);
  const { width, height } = a;
  if (a.data.length < width * height || b.data.length < width * height) throw new RangeError(`picture data shorter than its ${width}x${height} luma plane`);
  if (width < 8 || height < 8) throw new RangeError(`SSIM needs pictures of at least 8x8, got ${width}x${height}`);
  const bw = Math.floor(width / 4);
  const bh = Math.floor(height / 4);
  const n = bw * bh;
  const sa = new Float64Array(n), sb = new Float64Array(n), saa = new Float64Array(n), sbb = new Float64Array(n), sab = new Float64Array(n);
  const pa = a.data, pb = b.data;
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      let s1 = 0, s2 = 0, s11 = 0, s22 = 0, s12 = 0;
      for (let y = by * 4; y < by * 4 + 4; y++) {
        const row = y * width + bx * 4;
        for (let x = row; x < row + 4; x++) {
          const u = pa[x], v = pb[x];
          s1 += u; s2 += v; s11 += u * u; s22 += v * v; s12 += u * v;
        }
      }
      const k = by * bw + bx;
      sa[k] = s1; sb[k] = s2; saa[k] = s11; sbb[k] = s22; sab[k] = s12;
    }
  }
  let total = 0;
  let windows = 0;
  for (let by = 0; by + 1 < bh; by++) {
    for (let bx = 0; bx + 1 < bw; bx++) {
      const k = by * bw + bx;
      const k2 = k + bw;
      const s1 = sa[k] + sa[k + 1] + sa[k2] + sa[k2 + 1];
      const s2 = sb[k] + sb[k + 1] + sb[k2] + sb[k2 + 1];
      const s11 = saa[k] + saa[k + 1] + saa[k2] + saa[k2 + 1];
      const s22 = sbb[k] + sbb[k + 1] + sbb[k2] + sbb[k2 + 1];
      const s12 = sab[k] + sab[k + 1] + sab[k2] + sab[k2 + 1];
      const mu1 = s1 / 64, mu2 = s2 / 64;
      const var1 = s11 / 64 - mu1 * mu1;
      const var2 = s22 / 64 - mu2 * mu2;
      const cov = s12 / 64 - mu1 * mu2;
      total += ((2 * mu1 * mu2 + C1) * (2 * cov + C2)) / ((mu1 * mu1 + mu2 * mu2 + C1) * (var1 + var2 + C2));
      windows++;
    }
  }
  return total / windows;
}

/** SSIM in decibels: 10 log10(1 / (1 - ssim)); Infinity for identical pictures. */
export function ssimToDb(ssim: number): number {
  return 10 * Math.log10(1 / (1 - ssim));
}
