// Calibration of the model codec's concealment rule (src/salsify/model-codec.ts,
// CONCEALMENT) against VP8 with libvpx's error concealment (the libvpx the
// addon builds from Debian's source; see docs/development.md): a chain of
// frames, each from the previous one's state at one quantizer, as a
// conventional codec (and Salsify between losses) sends them; then
//   missing: frame k cut after its first j datagrams (1400-byte payloads, as
//            the sender fragments), decoded with concealment from frame k-1's
//            state: the SSIM lost against the intact decode, per fraction of
//            the frame's bytes missing (least squares through 0);
//   carry:   the frames after a cut one, decoded whole from the damaged
//            state: the share of the SSIM loss still there one frame later
//            (ratio of sums over the next FOLLOW frames);
//   skip:    frame k lost whole, frame k+1 decoded from frame k-1's state: the
//            SSIM lost.
// SSIM is luma SSIM against the source picture, linear.
//
//   node --import tsx bench/salsify-concealment-calibration.ts [VIDEO] [QUANTIZERS] [FRAMES]
//       VIDEO       default ../shared/video/FourPeople_1280x720_60.ivf
//       QUANTIZERS  joined by commas (default 30,60)
//       FRAMES      frames in the chain (default 48; losses at every 6th from the 6th)
import { createVP8Codec, ssim } from '../src/codec-bridge/index.ts';
import type { CodecState, Picture } from '../src/codec-bridge/types.ts';
import { MAX_FRAGMENT_PAYLOAD } from '../src/salsify/datagram.ts';
import { openVideo } from '../src/salsify/open-inputs.ts';

const spec = process.argv[2] ?? '../shared/video/FourPeople_1280x720_60.ivf';
const quantizers = (process.argv[3] ?? '30,60').split(',').map(Number);
const N = Number(process.argv[4] ?? 48);
const FOLLOW = 5;
if (!(Number.isInteger(N) && N >= 12)) throw new Error(`FRAMES must be an integer of at least 12, got ${process.argv[4]}`);
const codec = createVP8Codec();
if (!codec.conceal) throw new Error('the addon\'s libvpx has no error concealment: build it from source (docs/development.md)');
const conceal = codec.conceal;
const source = await openVideo(spec);
const { width: W, height: H } = source;
const pictures: Picture[] = [];
for (let i = 0; i < N; i++) pictures.push(await source.frame(i));
console.log(`${spec} ${W}x${H}, ${N} frames, losses at frames 6, 12, ...; ${MAX_FRAGMENT_PAYLOAD}-byte datagram payloads`);
const t0 = performance.now();
const all = { missX: [] as number[], missY: [] as number[], carryNum: 0, carryDen: 0, skip: [] as number[] };
for (const q of quantizers) {
  const states: CodecState[] = [codec.initialState(W, H)];
  const frames: Uint8Array[] = [];
  const exact: number[] = [];
  for (let i = 0; i < N; i++) {
    const r = await codec.encode(states[i], pictures[i], i === 0 ? Math.min(q, 60) : q);
    frames.push(r.frame);
    states.push(r.state);
    exact.push(ssim(pictures[i], (await codec.decode(states[i], r.frame)).picture).y);
  }
  const missX: number[] = [], missY: number[] = [];
  let carryNum = 0, carryDen = 0;
  const skip: number[] = [];
  let sizes = 0, count = 0;
  for (let k = 6; k + FOLLOW + 1 < N; k += 6) {
    const frame = frames[k];
    sizes += frame.length;
    count++;
    const datagrams = Math.ceil(frame.length / MAX_FRAGMENT_PAYLOAD);
    for (let j = 1; j < datagrams; j++) {
      // the frame before, decoded as the receiver would: libvpx's concealment reads its modes
      await codec.decode(states[k - 1], frames[k - 1]);
      const cut = frame.subarray(0, j * MAX_FRAGMENT_PAYLOAD);
      const c = await conceal(states[k], cut, frame.length);
      missX.push(1 - cut.length / frame.length);
      missY.push(exact[k] - ssim(pictures[k], c.picture).y);
      if (j === 1) {
        let s = c.state, previous = missY.at(-1)!;
        for (let f = 1; f <= FOLLOW; f++) {
          const d = await conceal(s, frames[k + f], frames[k + f].length);
          const loss = exact[k + f] - ssim(pictures[k + f], d.picture).y;
          carryNum += loss;
          carryDen += previous;
          previous = loss;
          s = d.state;
        }
      }
    }
    const d = await conceal(states[k], frames[k + 1], frames[k + 1].length);
    skip.push(exact[k + 1] - ssim(pictures[k + 1], d.picture).y);
  }
  const slope = (x: number[], y: number[]) => x.reduce((a, v, i) => a + v * y[i], 0) / x.reduce((a, v) => a + v * v, 0);
  const mean = (x: number[]) => x.reduce((a, v) => a + v, 0) / x.length;
  console.log(`q ${q}: inter frames of the losses ${(sizes / count).toFixed(0)} B; intact SSIM ${mean(exact.slice(1)).toFixed(4)}`);
  console.log(`  missing: ${missX.length} cuts, SSIM lost ${mean(missY).toFixed(4)} at ${(mean(missX) * 100).toFixed(0)} % missing; per whole frame missing ${slope(missX, missY).toFixed(4)}`);
  console.log(`  carry:   ${(carryNum / carryDen).toFixed(3)} of the loss remains one frame later (over ${FOLLOW} frames)`);
  console.log(`  skip:    ${mean(skip).toFixed(4)} lost decoding a frame one frame ahead of its source (${skip.length} cases)`);
  all.missX.push(...missX);
  all.missY.push(...missY);
  all.carryNum += carryNum;
  all.carryDen += carryDen;
  all.skip.push(...skip);
}
const slope = all.missX.reduce((a, v, i) => a + v * all.missY[i], 0) / all.missX.reduce((a, v) => a + v * v, 0);
console.log(`all: missing ${slope.toFixed(4)}, carry ${(all.carryNum / all.carryDen).toFixed(3)}, skip ${(all.skip.reduce((a, v) => a + v, 0) / all.skip.length).toFixed(4)}`);
console.log(`(${((performance.now() - t0) / 1000).toFixed(1)} s)`);
await codec.close();
