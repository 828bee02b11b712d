// Calibration of the model codec (src/salsify/model-codec.ts) against the real
// VP8 codec: for each quantizer, the key frame and the mean inter frame size
// (frames 1..N at the clip's rate, each from the previous frame's state), the
// mean luma SSIM of the decoded inter frames, and what the model codec gives
// for the same pictures; plus the model's scene-complexity figures.
//
//   node --import tsx bench/salsify-model-calibration.ts [VIDEO] [FRAMES]
//       VIDEO   default ../shared/video/FourPeople_1280x720_60.ivf (or synthetic, or a .y4m)
//       FRAMES  inter frames per quantizer (default 12)
//
// The "ratio" columns are model / VP8 (1 = calibrated).
import { createVP8Codec, ssim } from '../src/codec-bridge/index.ts';
import { openVideo } from '../src/salsify/open-inputs.ts';
import { createModelCodec, sampleGrid, spatialComplexity, temporalComplexity } from '../src/salsify/model-codec.ts';

const spec = process.argv[2] ?? '../shared/video/FourPeople_1280x720_60.ivf';
const N = Number(process.argv[3] ?? 12);
if (!(Number.isInteger(N) && N > 0)) throw new Error(`FRAMES must be a positive integer, got ${process.argv[3]}`);
const codec = createVP8Codec();
const model = createModelCodec();
const source = await openVideo(spec);
const { width: W, height: H } = source;
const pictures = [];
for (let i = 0; i <= N; i++) pictures.push(await source.frame(i));

let spatial = 0, temporal = 0;
for (let i = 1; i <= N; i++) {
  spatial += spatialComplexity(sampleGrid(pictures[i]));
  temporal += temporalComplexity(sampleGrid(pictures[i]), sampleGrid(pictures[i - 1]));
}
console.log(`${spec} ${W}x${H}, ${N} inter frames at the clip's rate`);
console.log(`model scene complexity: spatial ${(spatial / N).toFixed(4)}, temporal ${(temporal / N).toFixed(4)} (means)`);
console.log('| q | VP8 key B | model | ratio | VP8 inter B | model | ratio | VP8 SSIM | model | VP8 key bpp | VP8 inter bpp |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
const t0 = performance.now();
for (const q of [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 127]) {
  let s = codec.initialState(W, H);
  let ms = model.initialState(W, H);
  let key = 0, mKey = 0, inter = 0, mInter = 0, ss = 0, mss = 0;
  for (let i = 0; i <= N; i++) {
    const r = await codec.encode(s, pictures[i], q);
    const m = await model.encode(ms, pictures[i], q);
    if (i === 0) {
      key = r.frame.length;
      mKey = m.frame.length;
    } else {
      const d = await codec.decode(s, r.frame);
      inter += r.frame.length;
      mInter += m.frame.length;
      ss += ssim(pictures[i], d.picture).y;
      mss += model.modelledSsim(m.frame);
    }
    s = r.state;
    ms = m.state;
  }
  const px = W * H;
  console.log(`| ${q} | ${key} | ${mKey} | ${(mKey / key).toFixed(2)} | ${(inter / N).toFixed(0)} | ${(mInter / N).toFixed(0)} | ${(mInter / inter).toFixed(2)} | ${(ss / N).toFixed(4)} | ${(mss / N).toFixed(4)} | ${((key * 8) / px).toFixed(4)} | ${((inter * 8) / N / px).toFixed(4)} |`);
}
console.log(`(${((performance.now() - t0) / 1000).toFixed(1)} s)`);
await codec.close();
await source.close();
