// The frame-number barcode: every number reads back, also after the picture is
// shrunk to a quarter (Chromium's 640x360 -> 320x180) and after a VP8 round
// trip at a coarse quantizer; a picture without a barcode, or a damaged one,
// reads as null; the clip writer stamps each frame with its number.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createVP8Codec } from '../../src/codec-bridge/index.ts';
import { SyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { Y4mFile } from '../../src/codec-bridge/video/y4m-file.ts';
import { barcodeCells, barcodeStripHeight, decodeBarcode, decodeBarcodeLuma, stampBarcode } from '../../src/webrtc/barcode.ts';
import { prepareClip, preparedFrameCount } from '../../src/webrtc/clip.ts';
import { resizePicture } from '../../src/webrtc/scale.ts';

const scene = new SyntheticScene({ width: 640, height: 360, fps: 30, seed: 7 });

test('cells: sync white/black, 16 bits MSB first, parity, black end', () => {
  assert.equal(barcodeCells(0).map(Number), [1, 0, ...new Array(16).fill(0), 0, 0]);
  assert.equal(barcodeCells(0x8001).map(Number), [1, 0, 1, ...new Array(14).fill(0), 1, 0, 0]);
  assert.equal(barcodeCells(0x0007).map(Number).slice(15), [1, 1, 1, 1, 0]);
  assert.throws(() => barcodeCells(65536), /0\.\.65535/);
  assert.throws(() => barcodeCells(-1), /0\.\.65535/);
});

test('every sampled number survives stamping, shrinking to 320x180 and 160x90', async () => {
  const base = await scene.frame(3);
  for (const n of [0, 1, 2, 255, 256, 1234, 4095, 32768, 43690, 21845, 65535]) {
    const picture = { ...base, data: base.data.slice() };
    stampBarcode(picture, n);
    assert.is(decodeBarcode(picture), n, `${n} at 640x360`);
    assert.is(decodeBarcode(resizePicture(picture, 320, 180)), n, `${n} at 320x180`);
    assert.is(decodeBarcode(resizePicture(picture, 160, 90)), n, `${n} at 160x90`);
    assert.is(decodeBarcode(resizePicture(picture, 1280, 720)), n, `${n} at 1280x720`);
  }
});

test('a barcode survives a VP8 round trip at a coarse quantizer, after shrinking', async () => {
  const codec = createVP8Codec();
  try {
    let state = codec.initialState(320, 180);
    for (let k = 0; k < 6; k++) {
      const picture = await scene.frame(k);
      stampBarcode(picture, 1000 + k);
      const small = resizePicture(picture, 320, 180);
      const encoded = await codec.encode(state, small, 100);
      const decoded = await codec.decode(state, encoded.frame);
      state = decoded.state;
      assert.is(decodeBarcode(decoded.picture), 1000 + k);
    }
  } finally {
    await codec.close();
  }
});

test('no barcode, a smudged cell or a wrong parity reads as null', async () => {
  const picture = await scene.frame(0);
  assert.is(decodeBarcode(picture), null, 'the scene itself has no barcode');
  stampBarcode(picture, 500);
  const cell = barcodeStripHeight(640, 360);
  const smudged = { ...picture, data: picture.data.slice() };
  for (let y = 0; y < cell; y++) smudged.data.fill(125, y * 640 + 5 * cell, y * 640 + 6 * cell);
  assert.is(decodeBarcode(smudged), null, 'a grey cell is unclear');
  const flipped = { ...picture, data: picture.data.slice() };
  for (let y = 0; y < cell; y++) flipped.data.fill(flipped.data[y * 640 + 18 * cell + 2] > 128 ? 16 : 235, y * 640 + 18 * cell, y * 640 + 19 * cell);
  assert.is(decodeBarcode(flipped), null, 'parity');
});

test('the decoder reads a strip given with a stride, as the pages give it', () => {
  const picture = { width: 320, height: 180, data: new Uint8Array(320 * 180 * 1.5) };
  stampBarcode(picture, 777);
  const stride = 384;
  const rows = new Uint8Array(stride * 16);
  for (let y = 0; y < 16; y++) rows.set(picture.data.subarray(y * 320, y * 320 + 320), y * stride);
  assert.is(decodeBarcodeLuma(rows, 320, 180, stride), 777);
  // The page runs the function's own source text.
  const inPage = new Function(`return (${decodeBarcodeLuma.toString()})`)() as typeof decodeBarcodeLuma;
  assert.is(inPage(rows, 320, 180, stride), 777);
});

test('preparedFrameCount: one forward-and-backward period at the call rate', () => {
  assert.is(preparedFrameCount(601, 60, 30, 99), 600);
  assert.is(preparedFrameCount(601, 60, 60, 99), 1200);
  assert.is(preparedFrameCount(undefined, 30, 30, 99), 99);
});

test('prepareClip writes the scaled, stamped frames, numbered from 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'webrtc-clip-'));
  try {
    const clip = await prepareClip(join(dir, 'clip.y4m'), { video: 'synthetic', width: 320, height: 180, fps: 30, syntheticFrames: 12 });
    assert.is(clip.frameCount, 12);
    const file = await Y4mFile.open(clip.path);
    try {
      assert.equal([file.width, file.height, file.fps, file.frameCount], [320, 180, 30, 12]);
      for (let k = 0; k < 12; k++) assert.is(decodeBarcode(await file.read(k)), k);
    } finally {
      await file.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
