import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CONCEALMENT, concealedDamage, createModelCodec, inspectModelFrame, modelFrameBytes, modelSsim } from '../../src/salsify/model-codec.ts';
import { modelledDecodeMs, modelledEncodeMs } from '../../src/salsify/timing-model.ts';
import { modelEncodeMs } from '../../src/codec-bridge/encode-time-model.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { createRng } from '../../src/common/random.ts';

const scene = createSyntheticScene({ width: 320, height: 180, seed: 2 });

test('sizes fall with the quantizer, key frames are larger, and the same input gives the same bytes', async () => {
  const codec = createModelCodec();
  const s0 = codec.initialState(320, 180);
  const p0 = await scene.frame(0);
  const p1 = await scene.frame(1);
  const key = await codec.encode(s0, p0, 40);
  assert.ok(key.keyFrame);
  const sizes = [];
  for (const q of [0, 20, 40, 80, 127]) sizes.push((await codec.encode(key.state, p1, q)).frame.length);
  for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i] <= sizes[i - 1], `sizes ${sizes}`);
  const inter = await codec.encode(key.state, p1, 40);
  assert.not.ok(inter.keyFrame);
  assert.ok(key.frame.length > 2 * inter.frame.length, `key ${key.frame.length} vs inter ${inter.frame.length}`);
  const again = await createModelCodec().encode(createModelCodec().initialState(320, 180), p0, 40);
  assert.equal(again.frame, key.frame);
  assert.is(again.state.id, key.state.id);
  assert.match(key.state.id, /^[0-9a-f]{16}$/);
  // calibration points (FourPeople at 720p: s = 0.1423, t = 0.0029)
  assert.ok(Math.abs(modelFrameBytes(1280, 720, 40, false, 0.1423, 0.0029) - 2915) <= 1); // VP8: 2920
  assert.ok(Math.abs(modelFrameBytes(1280, 720, 40, true, 0.1423, 0.0029) - 42843) <= 1); // VP8: 42848
  assert.ok(modelFrameBytes(1280, 720, 40, false, 0.1423, 0.02) > modelFrameBytes(1280, 720, 40, false, 0.1423, 0.0029));
});

test('a sampled picture (the synthetic scene\'s) is read only through lumaAt, and codes exactly as its rendered pixels', async () => {
  const codec = createModelCodec();
  let state = codec.initialState(320, 180);
  let plainState = state;
  for (const index of [0, 1, 2, 50]) {
    const sampled = await scene.frame(index);
    const untouchable = { width: 320, height: 180, lumaAt: sampled.lumaAt, get data(): Uint8Array { throw new Error('the model codec read the whole picture'); } };
    const plain = { width: 320, height: 180, data: scene.render(index).data };
    const a = await codec.encode(state, untouchable, 40);
    const b = await codec.encode(plainState, plain, 40);
    assert.equal(a.frame, b.frame, `frame ${index}`);
    assert.is(a.state.id, b.state.id);
    state = a.state;
    plainState = b.state;
  }
});

test('states chain: a frame decodes only from its source state, to its target state', async () => {
  const codec = createModelCodec();
  const s0 = codec.initialState(320, 180);
  const a = await codec.encode(s0, await scene.frame(0), 30);
  const b = await codec.encode(a.state, await scene.frame(1), 30);
  const c = await codec.encode(b.state, await scene.frame(2), 30);
  const da = await codec.decode(s0, a.frame);
  assert.is(da.state.id, a.state.id);
  assert.is(da.picture.width, 320);
  const db = await codec.decode(da.state, b.frame);
  assert.is(db.state.id, b.state.id);
  // skipping b: c cannot be decoded from a's state
  await codec.decode(da.state, c.frame).then(() => assert.unreachable('decoded from the wrong state'), (e: Error) => assert.match(e.message, /encoded from state/));
  // the same picture from another state gives a different target id
  const c2 = await codec.encode(a.state, await scene.frame(2), 30);
  assert.is.not(c2.state.id, c.state.id);
  // a corrupted header (its quantizer) is caught by the target-id check
  const bad = c.frame.slice();
  bad[5] ^= 1;
  await codec.decode(db.state, bad).then(() => assert.unreachable('decoded a corrupted frame'), (e: Error) => assert.match(e.message, /corrupted/));
  assert.throws(() => inspectModelFrame(new Uint8Array(10)), /shorter/);
  await codec.encode(s0, await scene.frame(0), 128).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /quantizer/));
  await codec.encode(s0, { width: 16, height: 16, data: new Uint8Array(384) }, 10).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /16x16/));
});

test('decoding random bytes never crashes and never succeeds (seeded fuzz)', async () => {
  const codec = createModelCodec();
  const s0 = codec.initialState(320, 180);
  const good = await codec.encode(s0, await scene.frame(0), 30);
  const rng = createRng('model-fuzz');
  for (let n = 0; n < 2000; n++) {
    let bytes: Uint8Array;
    if (rng.next() < 0.5) {
      bytes = new Uint8Array(rng.int(400));
      for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
    } else {
      bytes = good.frame.slice(0, 1 + rng.int(200));
      bytes[rng.int(bytes.length)] ^= 1 << rng.int(8);
    }
    try {
      const r = await codec.decode(s0, bytes);
      // only a mutation that left the header (first 172 bytes) intact may decode, and then to the same state
      assert.is(r.state.id, good.state.id);
    } catch (e) {
      assert.instance(e, Error);
    }
  }
});

test('modelled SSIM falls with the quantizer; timing model follows the measured libvpx model', async () => {
  assert.ok(modelSsim(0) > modelSsim(40));
  assert.ok(modelSsim(40) > modelSsim(127));
  assert.is(modelSsim(40), 0.9799); // a calibration point
  assert.ok(Math.abs(modelSsim(45) - (0.9799 + 0.974) / 2) < 1e-12);
  assert.is(modelledEncodeMs(1280, 720, 40), modelEncodeMs(1280, 720, 40));
  assert.is(modelledEncodeMs(1280, 720, 40, true), 1.5 * modelEncodeMs(1280, 720, 40));
  assert.ok(modelledEncodeMs(1280, 720, 10) > modelledEncodeMs(1280, 720, 100));
  assert.ok(modelledEncodeMs(640, 360, 30) < modelledEncodeMs(1280, 720, 30) / 3);
  assert.ok(Math.abs(modelledDecodeMs(1280, 720, 127) - 1.3) < 1e-9 && Math.abs(modelledDecodeMs(1280, 720, 0) - 2.3) < 1e-9);
  assert.ok(Math.abs(modelledDecodeMs(640, 360, 30) * 4 - modelledDecodeMs(1280, 720, 30)) < 1e-9);
  assert.throws(() => modelledEncodeMs(0, 720, 30), /picture size/);
  assert.throws(() => modelledDecodeMs(1280, 720, 200), /quantizer/);
});

test('concealment rule: a concealed frame is shown at its quantizer\'s SSIM less the damage; the damage carries, grows with what is missing and with a skipped frame, and an exact decode clears it', async () => {
  const codec = createModelCodec();
  const s0 = codec.initialState(320, 180);
  const f = [await codec.encode(s0, await scene.frame(0), 30)];
  for (let i = 1; i < 5; i++) f.push(await codec.encode(f[i - 1].state, await scene.frame(i), 30));
  const full = modelSsim(30);
  // frame 1: only its first 40 % arrived
  const cut = Math.max(250, Math.floor(f[1].frame.length * 0.4));
  const part = f[1].frame.subarray(0, cut);
  const c1 = await codec.conceal(f[0].state, part, f[1].frame.length);
  assert.ok(c1.concealed);
  const d1 = CONCEALMENT.missing * (1 - cut / f[1].frame.length);
  assert.ok(Math.abs(full - d1 - codec.modelledSsim(part, c1.state)) < 1e-12);
  assert.not.ok([f[1].state.id, f[0].state.id].includes(c1.state.id));
  // frame 2, whole, from the damaged state that stands for its source: the damage carries
  const c2 = await codec.conceal(c1.state, f[2].frame, f[2].frame.length);
  assert.ok(Math.abs(full - concealedDamage(d1, 0, false) - codec.modelledSsim(f[2].frame, c2.state)) < 1e-12);
  // frame 4 from frame 2's damaged state (frame 3 missing): a skip adds to it
  const c4 = await codec.conceal(c2.state, f[4].frame, f[4].frame.length);
  assert.ok(Math.abs(full - concealedDamage(concealedDamage(d1, 0, false), 0, true) - codec.modelledSsim(f[4].frame, c4.state)) < 1e-12);
  // an exact decode from a state the encoder made is undamaged
  const exact = await codec.decode(f[2].state, f[3].frame);
  assert.is(codec.modelledSsim(f[3].frame, exact.state), full);
  // the whole frame from its own source through conceal() is the exact decode
  const same = await codec.conceal(f[2].state, f[3].frame, f[3].frame.length);
  assert.not.ok(same.concealed);
  assert.is(same.state.id, f[3].state.id);
  // the same inputs give the same damaged state
  assert.is((await codec.conceal(f[0].state, part, f[1].frame.length)).state.id, c1.state.id);
  let refused = false;
  await codec.conceal(f[0].state, f[1].frame.subarray(0, 20), f[1].frame.length).catch(() => { refused = true; });
  assert.ok(refused, 'a prefix shorter than the model header cannot be concealed');
});

test.run();
