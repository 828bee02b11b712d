// Source pictures for the VP8 codec tests: the first frames of the shared
// FourPeople clip (decoded with our own stream decoder), and crops of them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createStreamDecoder } from '../../src/codec-bridge/stream-decoder.ts';
import type { Picture } from '../../src/codec-bridge/types.ts';

export const CLIP_PATH = fileURLToPath(new URL('../../../shared/video/FourPeople_1280x720_60.ivf', import.meta.url));

/** The frames of an IVF file (32-byte header, then 12-byte frame headers). */
export function ivfFrames(bytes: Uint8Array, limit = Infinity): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerSize = view.getUint16(6, true);
  const frames: Uint8Array[] = [];
  for (let at = headerSize; at + 12 <= bytes.length && frames.length < limit; ) {
    const size = view.getUint32(at, true);
    frames.push(bytes.subarray(at + 12, at + 12 + size));
    at += 12 + size;
  }
  return frames;
}

/** An IVF file holding `frames` (VP8, 1/60 time base). */
export function ivfFile(width: number, height: number, frames: Uint8Array[]): Uint8Array {
  const total = 32 + frames.reduce((n, f) => n + 12 + f.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set([0x44, 0x4b, 0x49, 0x46], 0); // DKIF
  view.setUint16(6, 32, true);
  out.set([0x56, 0x50, 0x38, 0x30], 8); // VP80
  view.setUint16(12, width, true);
  view.setUint16(14, height, true);
  view.setUint32(16, 60, true);
  view.setUint32(20, 1, true);
  view.setUint32(24, frames.length, true);
  let at = 32;
  frames.forEach((f, i) => {
    view.setUint32(at, f.length, true);
    view.setBigUint64(at + 4, BigInt(i), true);
    out.set(f, at + 12);
    at += 12 + f.length;
  });
  return out;
}

const cache: Picture[] = [];

/** The first `count` pictures of the FourPeople clip (1280x720). */
export async function clipPictures(count: number): Promise<Picture[]> {
  if (cache.length < count) {
    const frames = ivfFrames(readFileSync(CLIP_PATH), count);
    const decoder = createStreamDecoder();
    cache.length = 0;
    for (const f of frames) cache.push(await decoder.decode(f));
  }
  return cache.slice(0, count);
}

/** The `width` x `height` region at (x, y) of a picture (x, y even). */
export function crop(p: Picture, x: number, y: number, width: number, height: number): Picture {
  const cw = (width + 1) >> 1;
  const ch = (height + 1) >> 1;
  const pcw = (p.width + 1) >> 1;
  const pch = (p.height + 1) >> 1;
  const data = new Uint8Array(width * height + 2 * cw * ch);
  let out = 0;
  for (let r = 0; r < height; r++, out += width) data.set(p.data.subarray((y + r) * p.width + x, (y + r) * p.width + x + width), out);
  for (const base of [p.width * p.height, p.width * p.height + pcw * pch]) {
    for (let r = 0; r < ch; r++, out += cw) {
      const from = base + (y / 2 + r) * pcw + x / 2;
      data.set(p.data.subarray(from, from + cw), out);
    }
  }
  return { width, height, data };
}

export function samePicture(a: Picture, b: Picture): boolean {
  return a.width === b.width && a.height === b.height && Buffer.compare(Buffer.from(a.data.buffer, a.data.byteOffset, a.data.length), Buffer.from(b.data.buffer, b.data.byteOffset, b.data.length)) === 0;
}
