// Throughput of the video sources, each against a baseline run in the same
// process: the synthetic scene at 720p against copying a ready 720p frame,
// the Y4M reader (streaming, and random access through the frame index)
// against reading the same file's raw bytes, the IVF reader against the same;
// then the looping IVF clip source with the VP8 decoder (disk and memory cache).
// Usage: node --import tsx bench/video-synthetic.ts [frames=300]
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStreamDecoder } from '../src/codec-bridge/stream-decoder.ts';
import type { Picture } from '../src/codec-bridge/types.ts';
import { createVP8Codec } from '../src/codec-bridge/vp8-codec.ts';
import { openIvfClipSource } from '../src/codec-bridge/video/clip-source.ts';
import { i420Size } from '../src/codec-bridge/video/i420.ts';
import { openIvfReader } from '../src/codec-bridge/video/ivf.ts';
import { SyntheticScene } from '../src/codec-bridge/video/synthetic-scene.ts';
import { Y4mFile } from '../src/codec-bridge/video/y4m-file.ts';
import { createY4mWriter, openY4mReader } from '../src/codec-bridge/video/y4m.ts';

const FRAMES = Number(process.argv[2] ?? 300);
const WIDTH = 1280;
const HEIGHT = 720;
const FOUR_PEOPLE = new URL('../../shared/video/FourPeople_1280x720_60.ivf', import.meta.url).pathname;

async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; result: T }> {
  const start = performance.now();
  const result = await work();
  return { ms: performance.now() - start, result };
}

async function readRaw(path: string): Promise<number> {
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) bytes += (chunk as Buffer).length;
  return bytes;
}

const rows: string[][] = [];
const row = (...cells: (string | number)[]) => rows.push(cells.map(String));

// Synthetic scene.
const construction = await timed(() => new SyntheticScene({ width: WIDTH, height: HEIGHT, fps: 60, seed: 1 }));
const scene = construction.result;
row('synthetic: construction (textures, noise tables)', `${construction.ms.toFixed(0)} ms`, '', '');
const ready = scene.render(0).data;
const buffer = new Uint8Array(i420Size(WIDTH, HEIGHT));
scene.render(1); // warm up
/** Milliseconds per frame of `work(i)` over FRAMES frames: the median of 5 rounds, each over FRAMES / 5 frames. */
function perFrame(work: (i: number) => void): number {
  const rounds: number[] = [];
  const perRound = Math.max(1, Math.floor(FRAMES / 5));
  for (let r = 0; r < 5; r++) {
    const start = performance.now();
    for (let i = r * perRound; i < (r + 1) * perRound; i++) work(i);
    rounds.push((performance.now() - start) / perRound);
  }
  return rounds.sort((a, b) => a - b)[2];
}
let sink = 0;
const copyMs = perFrame((i) => {
  sink += ready.slice()[i];
});
row('baseline: copy a ready 720p frame', `${(1000 / copyMs).toFixed(0)} frames/s`, `${copyMs.toFixed(3)} ms/frame`, '1.00');
const synthetic: [string, (i: number) => void][] = [
  ['synthetic: render(i), fresh 720p frame each', (i) => (sink += scene.render(i).data[i])],
  ['synthetic: renderInto(i, reused buffer)', (i) => scene.renderInto(i, buffer)],
  ['synthetic: renderInto, random frame order', (i) => scene.renderInto((i * 7919) % 100000, buffer)],
];
for (const [label, work] of synthetic) {
  const ms = perFrame(work);
  row(label, `${(1000 / ms).toFixed(0)} frames/s`, `${ms.toFixed(3)} ms/frame`, (ms / copyMs).toFixed(2));
}
if (sink < 0) console.log(sink);

// Y4M: write the scene's frames, then read them back.
const dir = await mkdtemp(join(tmpdir(), 'video-bench-'));
try {
  const path = join(dir, 'synthetic.y4m');
  const writer = createY4mWriter(path, { width: WIDTH, height: HEIGHT, fps: 60 });
  const write = await timed(async () => {
    for (let i = 0; i < FRAMES; i++) await writer.write({ width: WIDTH, height: HEIGHT, data: scene.render(i).data });
    await writer.close();
  });
  row('Y4M writer (render + write, page cache)', `${((FRAMES * 1000) / write.ms).toFixed(0)} frames/s`, '', '');
  await readRaw(path); // warm the page cache
  const raw = await timed(() => readRaw(path));
  const mbps = (bytes: number, ms: number) => `${((bytes / 1e6) / (ms / 1000)).toFixed(0)} MB/s`;
  row('baseline: raw read of the Y4M file', mbps(raw.result, raw.ms), `${((FRAMES * 1000) / raw.ms).toFixed(0)} frames/s`, '1.00');
  const stream = await timed(async () => {
    let frames = 0;
    for await (const picture of await openY4mReader(path)) frames += picture.data.length > 0 ? 1 : 0;
    return frames;
  });
  if (stream.result !== FRAMES) throw new Error(`read ${stream.result} frames, wrote ${FRAMES}`);
  row('Y4M streaming reader', mbps(raw.result, stream.ms), `${((FRAMES * 1000) / stream.ms).toFixed(0)} frames/s`, (stream.ms / raw.ms).toFixed(2));
  const indexing = await timed(() => Y4mFile.open(path));
  row('Y4M file: open + frame index', `${indexing.ms.toFixed(1)} ms for ${FRAMES} frames`, '', '');
  const file = indexing.result;
  const randomAccess = await timed(async () => {
    for (let i = 0; i < FRAMES; i++) await file.read((i * 37) % FRAMES);
  });
  await file.close();
  row('Y4M file: read(k), random order', mbps(raw.result, randomAccess.ms), `${((FRAMES * 1000) / randomAccess.ms).toFixed(0)} frames/s`, (randomAccess.ms / raw.ms).toFixed(2));
} finally {
  await rm(dir, { recursive: true, force: true });
}

// IVF reader on the shared clip.
await readRaw(FOUR_PEOPLE);
const ivfRaw = await timed(() => readRaw(FOUR_PEOPLE));
const ivf = await timed(async () => {
  let frames = 0;
  for await (const frame of await openIvfReader(FOUR_PEOPLE)) frames += frame.data.length > 0 ? 1 : 0;
  return frames;
});
row('baseline: raw read of FourPeople .ivf', `${((ivfRaw.result / 1e6) / (ivfRaw.ms / 1000)).toFixed(0)} MB/s`, '', '1.00');
row('IVF reader, FourPeople (601 frames)', `${((ivfRaw.result / 1e6) / (ivf.ms / 1000)).toFixed(0)} MB/s`, `${((ivf.result * 1000) / ivf.ms).toFixed(0)} frames/s`, (ivf.ms / ivfRaw.ms).toFixed(2));

// The looping IVF clip source with the VP8 stream decoder: the first pass decodes and caches, later passes read the cache.
for (const cache of ['disk', 'memory'] as const) {
  const decoder = createStreamDecoder();
  const rssBefore = process.memoryUsage().rss;
  const source = await openIvfClipSource(FOUR_PEOPLE, (frame) => decoder.decode(frame), { cache });
  const clipLength = source.frameCount ?? 0;
  const first = await timed(async () => {
    for (let i = 0; i < clipLength; i++) await source.frame(i);
  });
  const second = await timed(async () => {
    for (let i = clipLength; i < 2 * clipLength - 1; i++) await source.frame(i);
  });
  const rssGrowth = (process.memoryUsage().rss - rssBefore) / 1e6;
  await source.close();
  row(`IVF clip (${cache} cache): 1st pass, decode + keep`, `${((clipLength * 1000) / first.ms).toFixed(0)} frames/s`, `RSS +${rssGrowth.toFixed(0)} MB`, '');
  row(`IVF clip (${cache} cache): backward pass from cache`, `${(((clipLength - 1) * 1000) / second.ms).toFixed(0)} frames/s`, '', '');
}

// Does the synthetic scene compress like camera video? VP8 bytes per frame (a key frame, then a
// chain of inter frames at one quantizer) for the scene and for FourPeople, same size, same frame count.
const CHAIN = 60;
async function vp8Bytes(pictures: Picture[], quantizer: number): Promise<{ key: number; inter: number }> {
  const codec = createVP8Codec();
  try {
    let state = codec.initialState(WIDTH, HEIGHT);
    let key = 0;
    let inter = 0;
    for (const [i, picture] of pictures.entries()) {
      const result = await codec.encode(state, picture, quantizer);
      state = result.state;
      if (i === 0) key = result.frame.length;
      else inter += result.frame.length;
    }
    return { key, inter: inter / (pictures.length - 1) };
  } finally {
    await codec.close();
  }
}
const clipPictures: Picture[] = [];
{
  const decoder = createStreamDecoder();
  for await (const frame of await openIvfReader(FOUR_PEOPLE)) {
    clipPictures.push(await decoder.decode(frame));
    if (clipPictures.length === CHAIN) break;
  }
}
const scenePictures = Array.from({ length: CHAIN }, (_, i) => scene.render(i));
for (const quantizer of [16, 32, 64]) {
  const camera = await vp8Bytes(clipPictures, quantizer);
  const made = await vp8Bytes(scenePictures, quantizer);
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
  row(`VP8 q${quantizer}: FourPeople key / mean inter frame`, kb(camera.key), kb(camera.inter), '1.00');
  row(`VP8 q${quantizer}: synthetic key / mean inter frame`, kb(made.key), kb(made.inter), (made.inter / camera.inter).toFixed(2));
}

const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c].length)));
console.log(`video sources at ${WIDTH}x${HEIGHT}, ${FRAMES} frames, one thread (synthetic: median of 5 rounds; last column: time ratio against the baseline above it)`);
for (const r of rows) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
