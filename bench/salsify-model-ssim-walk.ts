// What a coarse frame costs in SSIM after fine ones, VP8 against the model
// codec: Salsify-4's walk after choosing its fourth encoding (quantizer 127):
// a chain at quantizer BASE (every third source frame, about Salsify's
// cycle under paper timing), then 127, 104, 81, 58, 35, 12 (its -23 steps
// back), then BASE again. The model's SSIM is a function of the frame's
// quantizer only (the clip's measured SSIM of a whole chain at that
// quantizer); VP8's coarse frame mostly keeps the reference's picture (its
// still parts are not re-coded), so its SSIM stays near the reference's.
//
//   node --import tsx bench/salsify-model-ssim-walk.ts [--video CLIP.ivf] [--base Q]
//
// (default ../shared/video/FourPeople_1280x720_60.ivf, base 5.)
import { ssim } from '../src/codec-bridge/index.ts';
import { modelSsim } from '../src/salsify/model-codec.ts';
import { openCodec, openVideo } from '../src/salsify/open-inputs.ts';
import { option, refuseUnknownOptions } from './options.ts';

refuseUnknownOptions(['base', 'video']);

const clip = option('video', new URL('../../shared/video/FourPeople_1280x720_60.ivf', import.meta.url).pathname);
const base = Number(option('base', '5'));
if (!(Number.isInteger(base) && base >= 0 && base <= 127)) throw new RangeError(`--base must be a quantizer 0..127, got ${base}`);

const db = (s: number) => (-10 * Math.log10(1 - s)).toFixed(2);
const codec = await openCodec('vp8');
const source = await openVideo(clip);
const walk = [...Array(12).fill(base), 127, 104, 81, 58, 35, 12, base, base];
console.log(`${clip}, ${source.width}x${source.height}: a chain at quantizer ${base}, then Salsify-4's walk back from 127`);
console.log('| frame | quantizer | VP8 bytes | VP8 SSIM (dB) | model SSIM (dB) |');
console.log('|---|---|---|---|---|');
let state = codec.initialState(source.width, source.height);
for (const [i, q] of walk.entries()) {
  const picture = await source.frame(3 * i);
  const encoded = await codec.encode(state, picture, q);
  const decoded = await codec.decode(state, encoded.frame);
  if (i >= 10) console.log(`| ${i} | ${q} | ${encoded.frame.length} | ${db(ssim(picture, decoded.picture).y)} | ${db(modelSsim(q))} |`);
  state = encoded.state;
}
await codec.close();
await source.close();
