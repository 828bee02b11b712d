import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Picture } from '../../src/codec-bridge/types.ts';
import { loopFrameIndex, openIvfClipSource, openY4mClipSource } from '../../src/codec-bridge/video/clip-source.ts';
import { i420Size } from '../../src/codec-bridge/video/i420.ts';
import { createIvfWriter, type IvfFrame } from '../../src/codec-bridge/video/ivf.ts';
import { openVideoSource } from '../../src/codec-bridge/video/open-video-source.ts';
import { frameIndexAt } from '../../src/codec-bridge/video/video-source.ts';
import { createY4mWriter } from '../../src/codec-bridge/video/y4m.ts';
import { rejects } from '../helpers/rejects.ts';

const dir = mkdtempSync(join(tmpdir(), 'video-sources-test-'));
const W = 10;
const H = 6;
const CLIP = 5;

/** Clip frame k: every byte derived from k, and byte 0 is k itself. */
function clipFrame(k: number): Uint8Array {
  const data = new Uint8Array(i420Size(W, H));
  for (let i = 0; i < data.length; i++) data[i] = (k * 50 + i * 3) & 255;
  data[0] = k;
  return data;
}

const y4mPath = join(dir, 'clip.y4m');
const ivfPath = join(dir, 'clip.ivf');

test.before(async () => {
  const y4m = createY4mWriter(y4mPath, { width: W, height: H, fps: 50 });
  for (let k = 0; k < CLIP; k++) await y4m.write({ width: W, height: H, data: clipFrame(k) });
  await y4m.close();
  // A tiny stateful "codec" for the IVF clip: each frame is the XOR of the picture with the previous one,
  // so frames decode correctly only in order, from the start, like VP8's inter frames.
  const ivf = createIvfWriter(ivfPath, { width: W, height: H, fps: 50, fourcc: 'XORD' });
  let previous: Uint8Array = new Uint8Array(i420Size(W, H));
  for (let k = 0; k < CLIP; k++) {
    const picture = clipFrame(k);
    await ivf.write({ data: picture.map((b, i) => b ^ previous[i]), timestamp: k });
    previous = picture;
  }
  await ivf.close();
});

function xorDecoder(calls: number[]) {
  let reference: Uint8Array = new Uint8Array(i420Size(W, H));
  return async (frame: IvfFrame): Promise<Picture> => {
    calls.push(frame.index);
    await new Promise((resolve) => setImmediate(resolve)); // decoding takes time
    reference = frame.data.map((b, i) => b ^ reference[i]);
    return { width: W, height: H, data: reference };
  };
}

test('loopFrameIndex plays forward then backward without a cut', () => {
  assert.equal(Array.from({ length: 13 }, (_, i) => loopFrameIndex(i, 4)), [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0]);
  assert.equal(Array.from({ length: 5 }, (_, i) => loopFrameIndex(i, 2)), [0, 1, 0, 1, 0]);
  assert.equal(Array.from({ length: 4 }, (_, i) => loopFrameIndex(i, 1)), [0, 0, 0, 0]);
  for (let i = 1; i < 5000; i++) {
    const step = Math.abs(loopFrameIndex(i, 601) - loopFrameIndex(i - 1, 601));
    assert.is(step, 1, `frame ${i}`);
  }
  assert.is(loopFrameIndex(1200, 601), 0);
  assert.is(loopFrameIndex(600, 601), 600);
  assert.is(loopFrameIndex(601, 601), 599);
  assert.throws(() => loopFrameIndex(-1, 4), /frame index must be an integer >= 0, got -1/);
  assert.throws(() => loopFrameIndex(1.5, 4), /got 1\.5/);
  assert.throws(() => loopFrameIndex(0, 0), /clip length must be an integer >= 1, got 0/);
});

test('frameIndexAt gives the newest frame captured by a time', () => {
  assert.is(frameIndexAt({ fps: 60 }, 0), 0);
  assert.is(frameIndexAt({ fps: 60 }, 16.6), 0);
  assert.is(frameIndexAt({ fps: 60 }, 1000 / 60), 1);
  assert.is(frameIndexAt({ fps: 60 }, 1000), 60);
  assert.is(frameIndexAt({ fps: 30000 / 1001 }, 1001), 30);
  assert.throws(() => frameIndexAt({ fps: 60 }, -1), /time must be a finite number >= 0 ms, got -1/);
});

test('Y4M clip source loops the clip, from disk or memory', async () => {
  for (const cache of ['none', 'memory'] as const) {
    const source = await openY4mClipSource(y4mPath, { cache });
    assert.is(source.width, W);
    assert.is(source.height, H);
    assert.is(source.fps, 50);
    assert.is(source.frameCount, CLIP);
    assert.is(source.description, y4mPath);
    for (const i of [0, 1, 4, 5, 8, 9, 12, 7, 100, 3]) {
      const picture = await source.frame(i);
      assert.equal(Array.from(picture.data), Array.from(clipFrame(loopFrameIndex(i, CLIP))), `${cache} frame ${i}`);
    }
    await rejects(source.frame(-1), /frame index must be an integer >= 0, got -1/);
    await source.close();
    await rejects(source.frame(0), /closed/);
  }
});

test('IVF clip source decodes in order once, keeps frames on disk or in memory, and cleans up', async () => {
  for (const cache of ['disk', 'memory'] as const) {
    const tempDir = mkdtempSync(join(dir, 'cache-'));
    const calls: number[] = [];
    const source = await openIvfClipSource(ivfPath, xorDecoder(calls), { cache, tempDir, fourcc: 'XORD' });
    assert.is(source.frameCount, CLIP);
    assert.is(source.fps, 50);
    assert.equal(calls, [], 'nothing is decoded before it is asked for');
    assert.equal(Array.from((await source.frame(2)).data), Array.from(clipFrame(2)));
    assert.equal(calls, [0, 1, 2]);
    // Concurrent requests in any order still decode each frame once, in order.
    const indexes = [13, 0, 9, 4, 5, 1, 20, 7];
    const pictures = await Promise.all(indexes.map((i) => source.frame(i)));
    pictures.forEach((picture, j) => {
      assert.equal(Array.from(picture.data), Array.from(clipFrame(loopFrameIndex(indexes[j], CLIP))), `${cache} frame ${indexes[j]}`);
    });
    assert.equal(calls, [0, 1, 2, 3, 4]);
    assert.is(readdirSync(tempDir).length, cache === 'disk' ? 1 : 0);
    await source.close();
    assert.equal(readdirSync(tempDir), [], 'the temporary cache is removed on close');
  }
});

test('IVF clip source: pictures handed out are copies, even when the decoder returns Buffers', async () => {
  for (const cache of ['disk', 'memory'] as const) {
    const decode = xorDecoder([]);
    // Like a decoder writing into a pooled buffer: every call returns the same Buffer, overwritten.
    const output = Buffer.alloc(i420Size(W, H));
    const reusing = async (frame: IvfFrame) => {
      output.set((await decode(frame)).data);
      return { width: W, height: H, data: output };
    };
    const source = await openIvfClipSource(ivfPath, reusing, {
      cache,
      fourcc: 'XORD',
      tempDir: dir,
    });
    const first = await source.frame(1);
    first.data.fill(0);
    const second = await source.frame(1);
    assert.equal(Array.from(second.data), Array.from(clipFrame(1)), cache);
    second.data.fill(0);
    assert.equal(Array.from((await source.frame(7)).data), Array.from(clipFrame(1)), cache);
    assert.equal(Array.from((await source.frame(0)).data), Array.from(clipFrame(0)), cache);
    await source.close();
  }
});

test('IVF clip source: decoder failures and wrong pictures name the clip and frame', async () => {
  const broken = await openIvfClipSource(ivfPath, async (frame) => {
    if (frame.index === 1) throw new Error('corrupt partition');
    return { width: W, height: H, data: new Uint8Array(i420Size(W, H)) };
  }, { fourcc: 'XORD', tempDir: dir });
  await broken.frame(0);
  await rejects(broken.frame(3), new RegExp(`^${ivfPath}: decoding frame 1 failed: corrupt partition`));
  await rejects(broken.frame(2), /decoding frame 1 failed/);
  await broken.close();
  const wrong = await openIvfClipSource(ivfPath, async () => ({ width: W, height: H, data: new Uint8Array(3) }), { fourcc: 'XORD', cache: 'memory' });
  await rejects(wrong.frame(0), /decoded frame 0: picture data is 3 bytes, expected 90/);
  await wrong.close();
  await rejects(openIvfClipSource(ivfPath, xorDecoder([])), /fourcc is "XORD", expected "VP80"/);
  await rejects(openIvfClipSource(ivfPath, undefined as never), /needs a decode function/);
});

test('openVideoSource: synthetic by default at 1280x720, 60 fps; sizes in the spec; clip paths', async () => {
  const synthetic = await openVideoSource('synthetic');
  assert.equal([synthetic.width, synthetic.height, synthetic.fps, synthetic.frameCount], [1280, 720, 60, undefined]);
  assert.is((await synthetic.frame(0)).data.length, i420Size(1280, 720));
  await synthetic.close();
  const small = await openVideoSource('synthetic:64x36@30', { seed: 'x' });
  assert.equal([small.width, small.height, small.fps], [64, 36, 30]);
  const same = await openVideoSource('synthetic', { width: 64, height: 36, fps: 30, seed: 'x' });
  assert.equal(Array.from((await small.frame(5)).data), Array.from((await same.frame(5)).data));
  await rejects(openVideoSource('synthetic:64x36', { width: 65 }), /width is 64 in "synthetic:64x36" but 65 in the options/);
  const y4m = await openVideoSource(y4mPath);
  assert.equal(Array.from((await y4m.frame(6)).data), Array.from(clipFrame(2)));
  await y4m.close();
  const ivf = await openVideoSource(ivfPath, { decode: xorDecoder([]), fourcc: 'XORD', cache: 'memory' });
  assert.equal(Array.from((await ivf.frame(7)).data), Array.from(clipFrame(1)));
  await ivf.close();
  await rejects(openVideoSource(ivfPath), /clip\.ivf: an IVF file needs options\.decode/);
  await rejects(openVideoSource(y4mPath, { cache: 'disk' }), /a Y4M file is its own disk cache/);
  await rejects(openVideoSource('clip.mp4'), /unknown video source "clip\.mp4": expected a \.y4m or \.ivf path or "synthetic/);
  await rejects(openVideoSource('synthetic:0x36'), /width must be an integer in 1\.\.16384, got 0/);
  await rejects(openVideoSource(join(dir, 'none.y4m')), /ENOENT/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
