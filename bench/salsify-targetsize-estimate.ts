// The Salsify reference's frame-size estimate against the real size, on our
// VP8 bridge (libvpx standing in for alfalfa's encoder): alfalfa 79b758b
// (src/encoder/size_estimation.cc) encodes a frame of width/4 x height/4 made
// of the source's macroblocks (4c, 4r) and multiplies its size by 16. Per
// quantizer, the mean over 29 inter frames (every 4th source frame) of the
// real size and of 16 x the sample's: the ratio is salsify-targetsize's
// TARGETSIZE_ESTIMATE_FACTOR.
//
//   node --import tsx bench/salsify-targetsize-estimate.ts [--video CLIP.ivf]
//
// (default ../shared/video/FourPeople_1280x720_60.ivf; the width and height
// must be multiples of 64.)
import type { Picture } from '../src/codec-bridge/types.ts';
import { openCodec, openVideo } from '../src/salsify/open-inputs.ts';
import { option, refuseUnknownOptions } from './options.ts';

refuseUnknownOptions(['video']);

const clip = option('video', new URL('../../shared/video/FourPeople_1280x720_60.ivf', import.meta.url).pathname);

function sample(p: Picture): Picture {
  const W = p.width / 4, H = p.height / 4;
  const data = new Uint8Array(W * H * 3 / 2);
  const plane = (srcOff: number, sw: number, dstOff: number, dw: number, dh: number, mb: number) => {
    for (let y = 0; y < dh; y++) for (let x = 0; x < dw; x++) {
      const bx = Math.floor(x / mb), by = Math.floor(y / mb);
      const sx = bx * 4 * mb + (x % mb), sy = by * 4 * mb + (y % mb);
      data[dstOff + y * dw + x] = p.data[srcOff + sy * sw + sx]!;
    }
  };
  plane(0, p.width, 0, W, H, 16);
  const cw = p.width / 2, ch = p.height / 2;
  plane(p.width * p.height, cw, W * H, W / 2, H / 2, 8);
  plane(p.width * p.height + cw * ch, cw, W * H + (W / 2) * (H / 2), W / 2, H / 2, 8);
  return { width: W, height: H, data } as Picture;
}

const codec = await openCodec('vp8');
const video = await openVideo(clip);
const { width, height } = video;
for (const q of [20, 40, 60, 80, 100, 127]) {
  let full = codec.initialState(width, height);
  let small = codec.initialState(width / 4, height / 4);
  let sumReal = 0, sumEst = 0, n = 0;
  for (let i = 0; i < 30; i++) {
    const pic = (await video.frame(i * 4)) as Picture;
    const a = await codec.encode(full, pic, q);
    const b = await codec.encode(small, sample(pic), q);
    if (i > 0) { sumReal += a.frame.length; sumEst += 16 * b.frame.length; n++; }
    full = a.state; small = b.state;
  }
  console.log(`q ${q}: real ${(sumReal / n).toFixed(0)} B, estimate ${(sumEst / n).toFixed(0)} B, ratio ${(sumEst / sumReal).toFixed(2)}, (est-real)/15 ${((sumEst - sumReal) / n / 15).toFixed(0)} B`);
}
await codec.close();
await video.close();
