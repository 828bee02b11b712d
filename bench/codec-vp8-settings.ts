// Checks the libvpx settings behind the functional codec on the test clip
// (../shared/video/FourPeople_1280x720_60.ivf), with plain stateful encoders:
//  - error-resilient mode: what frames carry across (entropy probabilities,
//    golden refreshes libvpx decides on its own) with and without it;
//  - the bytes cost of error-resilient mode with cyclic refresh on and off;
//  - whether identical runs give identical bytes at negative and positive speeds.
// Usage: node --import tsx bench/codec-vp8-settings.ts [frames=60]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createStreamDecoder, levelForQuantizer } from '../src/codec-bridge/index.ts';
import { nativeVp8 } from '../src/codec-bridge/native.ts';
import type { Picture } from '../src/codec-bridge/types.ts';

const frameCount = Number(process.argv[2] ?? 60);
const clip = fileURLToPath(new URL('../../shared/video/FourPeople_1280x720_60.ivf', import.meta.url));
const bytes = readFileSync(clip);
const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const decoder = createStreamDecoder();
const pictures: Picture[] = [];
for (let at = 32; at + 12 <= bytes.length && pictures.length < frameCount; ) {
  const size = view.getUint32(at, true);
  pictures.push(await decoder.decode(bytes.subarray(at + 12, at + 12 + size)));
  at += 12 + size;
}
const native = nativeVp8();

interface Mode {
  errorResilient: boolean;
  cyclicRefresh: boolean;
  cpuUsed: number;
}

async function run(mode: Mode, q: number): Promise<Uint8Array[]> {
  const enc = native.encoderCreate(1280, 720, mode.cpuUsed, mode.errorResilient, mode.cyclicRefresh);
  const frames: Uint8Array[] = [];
  for (const [i, p] of pictures.entries()) {
    frames.push((await native.encoderEncode(enc, p.data, i === 0 ? null : [], null, levelForQuantizer(q), true)).frame);
  }
  native.encoderClose(enc);
  return frames;
}

const total = (frames: Uint8Array[]) => frames.slice(1).reduce((n, f) => n + f.length, 0);
console.log(`${pictures.length} frames of 1280x720, plain stateful libvpx ${native.libvpxVersion()}`);
console.log('q index | ER+no cyclic refresh vs non-ER bytes | ER+cyclic refresh vs non-ER | non-ER: inter frames keeping entropy / refreshing golden | ER: same');
for (const q of [24, 64, 127]) {
  const ours = await run({ errorResilient: true, cyclicRefresh: false, cpuUsed: -8 }, q);
  const cyclic = await run({ errorResilient: true, cyclicRefresh: true, cpuUsed: -8 }, q);
  const normal = await run({ errorResilient: false, cyclicRefresh: false, cpuUsed: -8 }, q);
  const facts = (frames: Uint8Array[]) => {
    const headers = frames.slice(1).map((f) => native.parseFrameHeader(f));
    return `${headers.filter((h) => h.refreshEntropyProbs).length}/${headers.length} / ${headers.filter((h) => h.updatedRefs & 2).length}`;
  };
  const pct = (a: number, b: number) => `${(100 * (a / b - 1)).toFixed(1)}%`;
  console.log(`${q} | ${pct(total(ours), total(normal))} | ${pct(total(cyclic), total(normal))} | ${facts(normal)} | ${facts(ours)}`);
}

for (const cpuUsed of [-8, 8]) {
  const a = await run({ errorResilient: true, cyclicRefresh: false, cpuUsed }, 64);
  const b = await run({ errorResilient: true, cyclicRefresh: false, cpuUsed }, 64);
  const same = a.every((f, i) => Buffer.from(f).equals(Buffer.from(b[i])));
  console.log(`speed ${cpuUsed}: two identical runs give ${same ? 'identical' : 'DIFFERENT'} bytes (${total(a)} vs ${total(b)})`);
}
