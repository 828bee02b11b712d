// Benchmarks of the functional VP8 codec on ../shared/video/FourPeople_1280x720_60.ivf.
// Usage: node --import tsx bench/codec-vp8.ts [frames=60]
// Prints per-frame times (median) of encode at several quantizers, decode,
// state injection/extraction and SSIM; bytes per frame against quantizer;
// frames per second of "two encodings + decode + SSIM" on one core; the
// functional wrapper's overhead against plain stateful libvpx encoding of the
// same frames (same settings, same quantizer; ratio in the same process); and
// the bytes cost of error-resilient mode.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createStreamDecoder, createVP8Codec, levelForQuantizer, ssim, type Vp8State } from '../src/codec-bridge/index.ts';
import { nativeVp8 } from '../src/codec-bridge/native.ts';
import type { Picture } from '../src/codec-bridge/types.ts';

const frameCount = Number(process.argv[2] ?? 60);
const clip = fileURLToPath(new URL('../../shared/video/FourPeople_1280x720_60.ivf', import.meta.url));

function ivfFrames(bytes: Uint8Array, limit: number): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const frames: Uint8Array[] = [];
  for (let at = view.getUint16(6, true); at + 12 <= bytes.length && frames.length < limit; ) {
    const size = view.getUint32(at, true);
    frames.push(bytes.subarray(at + 12, at + 12 + size));
    at += 12 + size;
  }
  return frames;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (x: number, d = 2) => x.toFixed(d);

const decoder = createStreamDecoder();
const pictures: Picture[] = [];
for (const f of ivfFrames(readFileSync(clip), frameCount)) pictures.push(await decoder.decode(f));
console.log(`libvpx ${nativeVp8().libvpxVersion()}, ${pictures.length} frames of 1280x720, speed -8`);

/** CPU time (all threads of this process) and wall time of one awaited call, in ms. */
async function timed<T>(job: () => Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = await job();
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  return { value, wall, cpu: (u.user + u.system) / 1000 };
}

/**
 * The same frames at quantizer q through three encoders, interleaved frame by
 * frame so that machine load hits all alike: the functional codec (a chain,
 * each frame from the previous state), plain stateful libvpx with the same
 * settings, and plain libvpx without error resilience (bytes only).
 */
async function compare(q: number) {
  const native = nativeVp8();
  const level = levelForQuantizer(q);
  const plain = native.encoderCreate(1280, 720, -8, true);
  const nonEr = native.encoderCreate(1280, 720, -8, false);
  const codec = createVP8Codec({ encoders: 1 });
  let s: Vp8State = codec.initialState(1280, 720);
  const f = { wall: [] as number[], cpu: [] as number[], bytes: [] as number[], extract: [] as number[] };
  const p = { wall: [] as number[], cpu: [] as number[], bytes: [] as number[] };
  const n = { bytes: [] as number[] };
  for (const [i, picture] of pictures.entries()) {
    const refs = i === 0 ? null : ([] as const);
    const runPlain = async () => {
      const r = await timed(() => native.encoderEncode(plain, picture.data, refs, null, level, true));
      p.wall.push(r.wall), p.cpu.push(r.cpu), p.bytes.push(r.value.frame.length);
    };
    const runFunctional = async () => {
      const r = await timed(() => codec.encode(s, picture, q));
      f.wall.push(r.wall), f.cpu.push(r.cpu), f.bytes.push(r.value.frame.length), f.extract.push(r.value.timings.extract);
      s = r.value.state;
    };
    if (i % 2 === 0) {
      await runPlain();
      await runFunctional();
    } else {
      await runFunctional();
      await runPlain();
    }
    n.bytes.push((await native.encoderEncode(nonEr, picture.data, refs, null, level, true)).frame.length);
  }
  native.encoderClose(plain);
  native.encoderClose(nonEr);
  await codec.close();
  return { f, p, n };
}

console.log('\n## Encode time and bytes per frame against quantizer (inter frames, medians; functional chain vs plain stateful libvpx, same settings)');
console.log('q index | functional ms | plain ms | wall ratio | CPU ratio (sums) | extract+hash ms | bytes/frame (mean) | plain bytes | non-ER bytes | ER cost');
for (const q of [8, 24, 40, 64, 96, 127]) {
  const { f, p, n } = await compare(q);
  const inter = (xs: number[]) => xs.slice(1);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const fMed = median(inter(f.wall));
  const pMed = median(inter(p.wall));
  const cpuRatio = sum(inter(f.cpu)) / sum(inter(p.cpu));
  const erCost = mean(inter(p.bytes)) / mean(inter(n.bytes)) - 1;
  console.log(
    `${q} | ${fmt(fMed)} | ${fmt(pMed)} | ${fmt(fMed / pMed, 3)} | ${fmt(cpuRatio, 3)} | ${fmt(median(f.extract))} | ${fmt(mean(inter(f.bytes)), 0)} | ${fmt(mean(inter(p.bytes)), 0)} | ${fmt(mean(inter(n.bytes)), 0)} | ${fmt(100 * erCost, 1)}%`,
  );
}

console.log('\n## Salsify pattern on one core: two encodings (sequential) + decode + SSIM per frame');
{
  const codec = createVP8Codec({ encoders: 2 });
  const receiver = createVP8Codec({ encoders: 1 });
  let s: Vp8State = codec.initialState(1280, 720);
  let r: Vp8State = receiver.initialState(1280, 720);
  const enc: number[] = [];
  const dec: number[] = [];
  const sim: number[] = [];
  const inject: number[] = [];
  const extract: number[] = [];
  const decInject: number[] = [];
  const decExtract: number[] = [];
  const start = performance.now();
  for (const [i, p] of pictures.entries()) {
    let t = performance.now();
    const a = await codec.encode(s, p, 40);
    const b = await codec.encode(s, p, 64);
    enc.push(performance.now() - t);
    const kept = i % 3 === 0 ? b : a; // switch encoders' states now and then so injection happens
    inject.push(a.timings.inject, b.timings.inject);
    extract.push(a.timings.extract, b.timings.extract);
    t = performance.now();
    const d = await receiver.decode(r, kept.frame);
    dec.push(performance.now() - t);
    decInject.push(d.timings.inject);
    decExtract.push(d.timings.extract);
    t = performance.now();
    ssim(p, d.picture);
    sim.push(performance.now() - t);
    s = kept.state;
    r = d.state;
  }
  const total = performance.now() - start;
  console.log(`two encodings ${fmt(median(enc.slice(1)))} ms, decode ${fmt(median(dec.slice(1)))} ms, SSIM ${fmt(median(sim))} ms (medians)`);
  console.log(`encoder injection ${fmt(median(inject.filter((x) => x > 0.01)))} ms when needed (${inject.filter((x) => x > 0.01).length} of ${inject.length} encodings), extraction+hash ${fmt(median(extract))} ms`);
  console.log(`decoder injection ${fmt(median(decInject.filter((x) => x > 0.01).concat([0])))} ms when needed, extraction+hash ${fmt(median(decExtract))} ms`);
  console.log(`frames per second (two encodings + decode + SSIM, one core): ${fmt(pictures.length / (total / 1000), 1)}`);
  await codec.close();
  await receiver.close();
}

console.log('\n## Two encodings in parallel (two encoder instances on the thread pool) vs one after the other');
{
  const codec = createVP8Codec({ encoders: 2 });
  let s: Vp8State = codec.initialState(1280, 720);
  const par: number[] = [];
  const seq: number[] = [];
  for (const p of pictures) {
    let t = performance.now();
    const [a] = await Promise.all([codec.encode(s, p, 40), codec.encode(s, p, 64)]);
    par.push(performance.now() - t);
    t = performance.now();
    await codec.encode(s, p, 40);
    await codec.encode(s, p, 64);
    seq.push(performance.now() - t);
    s = a.state;
  }
  console.log(`parallel ${fmt(median(par))} ms, sequential ${fmt(median(seq))} ms, ratio ${fmt(median(par) / median(seq), 3)}`);
  await codec.close();
}
