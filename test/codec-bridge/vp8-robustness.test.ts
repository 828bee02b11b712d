// Corrupt frames and bad arguments: no crash, clear errors, and a decoder
// that still decodes clean frames bit-exactly afterwards.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { readFileSync } from 'node:fs';
import { createVP8Codec, parseVp8FrameHeader, reconstruction, ssim } from '../../src/codec-bridge/index.ts';
import { nativeVp8 } from '../../src/codec-bridge/native.ts';
import { CLIP_PATH, clipPictures, crop, ivfFrames, samePicture } from './vp8-fixtures.ts';

test('thousands of truncated, bit-flipped and random frames: no crash, decoder usable afterwards', async () => {
  const source = await clipPictures(4);
  const pictures = source.map((p) => crop(p, 500, 200, 64, 48));
  const sender = createVP8Codec({ encoders: 1 });
  const receiver = createVP8Codec({ encoders: 1 });
  const s0 = sender.initialState(64, 48);
  const k = await sender.encode(s0, pictures[0], 40);
  const i1 = await sender.encode(k.state, pictures[1], 40);
  const i2 = await sender.encode(i1.state, pictures[2], 40);
  const rng = createRng('vp8-fuzz');
  let failures = 0;
  let accepted = 0;
  for (let n = 0; n < 3000; n++) {
    const kind = n % 3;
    const base = rng.next() < 0.5 ? k : i1;
    const clean = rng.next() < 0.5 ? i1.frame : k.frame;
    let frame: Uint8Array;
    if (kind === 0) frame = clean.slice(0, 1 + rng.int(clean.length - 1));
    else if (kind === 1) {
      frame = clean.slice();
      for (let f = 1 + rng.int(4); f > 0; f--) frame[rng.int(frame.length)] ^= 1 << rng.int(8);
    } else {
      frame = new Uint8Array(1 + rng.int(300));
      for (let j = 0; j < frame.length; j++) frame[j] = rng.int(256);
    }
    try {
      const d = await receiver.decode(base.state, frame);
      accepted++;
      assert.is(d.picture.data.length, 64 * 48 * 1.5);
    } catch (error) {
      assert.instance(error, Error);
      failures++;
    }
    if (n % 100 === 99) {
      // After any mix of bad frames, a clean frame from a given state still decodes exactly.
      const d = await receiver.decode(i1.state, i2.frame);
      assert.is(d.state.id, i2.state.id, `after ${n + 1} corrupt frames`);
      assert.ok(samePicture(d.picture, reconstruction(i2.state)));
    }
  }
  assert.ok(failures > 1000, `only ${failures} of 3000 corrupt frames were rejected`);
  assert.ok(accepted > 0);
  await sender.close();
  await receiver.close();
});

test('frames that keep decoder state beyond the references are rejected clearly', async () => {
  // The shared clip was encoded the ordinary way: its inter frames keep their entropy probabilities.
  const [frame] = ivfFrames(readFileSync(CLIP_PATH), 1);
  const header = parseVp8FrameHeader(frame);
  assert.is(header.keyFrame, true);
  assert.is(header.refreshEntropyProbs, true);
  const codec = createVP8Codec({ encoders: 1 });
  let message = '';
  await codec.decode(codec.initialState(1280, 720), frame).catch((e: Error) => (message = e.message));
  assert.match(message, /refresh_entropy_probs=1/);
  await codec.close();
});

test('slots that share one libvpx buffer are separated before injection', async () => {
  const source = await clipPictures(4);
  const pictures = source.map((p) => crop(p, 500, 200, 64, 48));
  const codec = createVP8Codec({ encoders: 1 });
  const receiver = createVP8Codec({ encoders: 1 });
  const s0 = codec.initialState(64, 48);
  const k = await codec.encode(s0, pictures[0], 40);
  const i1 = await codec.encode(k.state, pictures[1], 40); // last differs from golden = alt-ref
  await codec.encode(s0, pictures[2], 40); // a key frame: the encoder's three slots now share one buffer
  const i2 = await codec.encode(i1.state, pictures[3], 40);
  assert.ok(i2.throwawayEncodes >= 1, 'expected a separating encoding');
  const d1 = await receiver.decode((await receiver.decode(s0, k.frame)).state, i1.frame);
  const d2 = await receiver.decode(d1.state, i2.frame);
  assert.is(d2.state.id, i2.state.id);
  assert.ok(samePicture(d2.picture, reconstruction(i2.state)));
  await codec.close();
  await receiver.close();
});

test('the codec rejects bad arguments with clear errors', async () => {
  const codec = createVP8Codec({ encoders: 1 });
  for (const [w, h] of [[0, 10], [-1, 10], [10, 1e6], [1.5, 10], [Number.NaN, 10], [16384, 16]]) {
    assert.throws(() => codec.initialState(w, h), /initialState: (width|height) must be an integer in 1\.\.16383/);
  }
  const s = codec.initialState(32, 32);
  const pic = { width: 32, height: 32, data: new Uint8Array(32 * 32 * 1.5) };
  for (const q of [-1, 128, 3.5, Number.NaN]) {
    let message = '';
    await codec.encode(s, pic, q).catch((e: Error) => (message = e.message));
    assert.match(message, /quantizer must be an integer in 0\.\.127/);
  }
  let message = '';
  await codec.encode(s, { width: 32, height: 32, data: new Uint8Array(100) }, 10).catch((e: Error) => (message = e.message));
  assert.match(message, /picture data has 100 bytes, expected 1536/);
  await codec.decode(s, new Uint8Array(0)).catch((e: Error) => (message = e.message));
  assert.match(message, /frame is empty/);
  assert.throws(() => createVP8Codec({ cpuUsed: 4 }), /cpuUsed must be an integer in -16\.\.-1/);
  assert.throws(() => createVP8Codec({ encoders: 0 }), /encoders must be an integer in 1\.\.16/);
  await codec.close();
});

test('the addon validates its arguments itself before touching memory', async () => {
  const native = nativeVp8();
  assert.throws(() => native.encoderCreate(0, 10, -8), /width must be an integer in 1\.\.16383, got 0/);
  assert.throws(() => native.encoderCreate(10, 20000, -8), /height must be an integer/);
  assert.throws(() => native.encoderCreate(10, 10, 99), /cpuUsed/);
  const enc = native.encoderCreate(32, 32, -8);
  const pic = new Uint8Array(32 * 32 * 1.5);
  assert.throws(() => native.encoderEncode(enc, new Uint8Array(10), null, null, 10), /picture.data has 10 bytes, expected 1536/);
  assert.throws(() => native.encoderEncode(enc, pic, null, null, 64), /level must be an integer in 0\.\.63/);
  const ref = new Uint8Array(32 * 32 * 1.5);
  const short = new Uint8Array(32 * 16 * 1.5);
  assert.throws(() => native.encoderEncode(enc, pic, [ref, short, ref], [1n, 2n, 3n], 10), /refs\[1\] \(golden\) has 768 bytes, expected 1536/);
  assert.throws(() => native.encoderEncode(enc, pic, [ref, ref, ref], [1n, 2n, -3n], 10), /hashes\[2\] must be a bigint/);
  assert.throws(() => native.encoderEncode({} as never, pic, null, null, 10), /encoder is not a handle/);
  const dec = native.decoderCreate(32, 32, -8);
  assert.throws(() => native.encoderEncode(dec, pic, null, null, 10), /encoder is not a handle/);
  assert.throws(() => native.decoderDecode(dec, new Uint8Array(0), null, null), /frame is empty/);
  assert.throws(() => native.ssim(pic, new Uint8Array(5), 32, 32), /b.data has 5 bytes/);
  const first = native.encoderEncode(enc, pic, null, null, 10);
  assert.throws(() => native.encoderEncode(enc, pic, null, null, 10), /encoder is busy/);
  await first;
  native.encoderClose(enc);
  assert.throws(() => native.encoderEncode(enc, pic, null, null, 10), /encoder is closed/);
});

test('ssim: identical pictures give 1, and degraded ones less', async () => {
  const [p] = await clipPictures(1);
  const a = crop(p, 0, 0, 320, 240);
  const r = ssim(a, a);
  assert.is(r.y, 1);
  assert.is(r.all, 1);
  const b = { ...a, data: a.data.map((v, i) => (i % 7 === 0 ? 255 - v : v)) };
  const s = ssim(a, b);
  assert.ok(s.y < 0.9 && s.y > 0, `y ${s.y}`);
  assert.ok(Math.abs(s.weighted - (0.8 * s.y + 0.1 * s.u + 0.1 * s.v)) < 1e-12);
});

test.run();
