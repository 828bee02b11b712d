// Calibration data for src/codec-bridge/encode-time-model.ts: libvpx encode time
// per inter frame (median, ms, measured in the worker thread) at two sizes and
// several quantizers, on ../shared/video/FourPeople_1280x720_60.ivf (640x360 is
// the clip's centre crop). Prints measured vs modelled times and their ratio.
// Usage: node --import tsx bench/codec-encode-time.ts [frames=40]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createStreamDecoder, createVP8Codec, type Vp8State } from '../src/codec-bridge/index.ts';
import { modelEncodeMs } from '../src/codec-bridge/encode-time-model.ts';
import type { Picture } from '../src/codec-bridge/types.ts';

const frameCount = Number(process.argv[2] ?? 40);
const clip = fileURLToPath(new URL('../../shared/video/FourPeople_1280x720_60.ivf', import.meta.url));
const bytes = readFileSync(clip);
const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const decoder = createStreamDecoder();
const full: Picture[] = [];
for (let at = 32; at + 12 <= bytes.length && full.length < frameCount; ) {
  const size = view.getUint32(at, true);
  full.push(await decoder.decode(bytes.subarray(at + 12, at + 12 + size)));
  at += 12 + size;
}

function crop(p: Picture, x: number, y: number, w: number, h: number): Picture {
  const data = new Uint8Array(w * h * 1.5);
  let out = 0;
  for (let r = 0; r < h; r++, out += w) data.set(p.data.subarray((y + r) * p.width + x, (y + r) * p.width + x + w), out);
  for (const base of [p.width * p.height, p.width * p.height * 1.25]) {
    for (let r = 0; r < h / 2; r++, out += w / 2) {
      const from = base + (y / 2 + r) * (p.width / 2) + x / 2;
      data.set(p.data.subarray(from, from + w / 2), out);
    }
  }
  return { width: w, height: h, data };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log('size | q index | measured ms | model ms | measured/model');
for (const [w, h] of [[1280, 720], [640, 360]]) {
  const pictures = w === 1280 ? full : full.map((p) => crop(p, 320, 180, w, h));
  for (const q of [8, 24, 40, 64, 96, 127]) {
    const codec = createVP8Codec({ encoders: 1 });
    let s: Vp8State = codec.initialState(w, h);
    const ms: number[] = [];
    for (const p of pictures) {
      const r = await codec.encode(s, p, q);
      if (!r.keyFrame) ms.push(r.timings.encode);
      s = r.state;
    }
    await codec.close();
    const m = median(ms);
    const model = modelEncodeMs(w, h, q);
    console.log(`${w}x${h} | ${q} | ${m.toFixed(2)} | ${model.toFixed(2)} | ${(m / model).toFixed(2)}`);
  }
}
