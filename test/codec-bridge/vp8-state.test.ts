// Codec states: immutability, serialisation round trip, and rejection of
// corrupted, truncated or mismatched states.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { createVP8Codec, deserializeState, reconstruction } from '../../src/codec-bridge/index.ts';
import { clipPictures, crop, samePicture } from './vp8-fixtures.ts';
import { rejects } from '../helpers/rejects.ts';

async function someStates() {
  const source = await clipPictures(3);
  const pictures = source.map((p) => crop(p, 300, 200, 96, 80));
  const codec = createVP8Codec({ encoders: 1 });
  const s0 = codec.initialState(96, 80);
  const s1 = (await codec.encode(s0, pictures[0], 30)).state;
  const s2 = (await codec.encode(s1, pictures[1], 30)).state;
  return { codec, pictures, s0, s1, s2 };
}

test('ids: equal for equal contents, different otherwise, and hex of 16 digits', async () => {
  const { codec, pictures, s0, s1, s2 } = await someStates();
  assert.match(s2.id, /^[0-9a-f]{16}$/);
  assert.is(codec.initialState(96, 80).id, s0.id);
  assert.is.not(codec.initialState(96, 81).id, s0.id);
  assert.is.not(s1.id, s2.id);
  // A fresh encoder (different private history) may choose other bytes, but its frame still decodes to its state.
  const fresh = createVP8Codec({ encoders: 1 });
  const again = await fresh.encode(s1, pictures[1], 30);
  assert.is((await fresh.decode(s1, again.frame)).state.id, again.state.id);
  await fresh.close();
  assert.is(s2.byteLength, 2 * 96 * 80 * 1.5, 'last and golden differ, golden = alt-ref');
  assert.is(s1.byteLength, 96 * 80 * 1.5, 'after a key frame all three slots hold one picture');
  assert.is(s0.byteLength, 0);
  await codec.close();
});

test('serialize / deserializeState round trip keeps the id and decodes the same', async () => {
  const { codec, pictures, s0, s2 } = await someStates();
  for (const s of [s0, s2]) {
    const copy = deserializeState(s.serialize());
    assert.is(copy.id, s.id);
    assert.is(copy.width, s.width);
    assert.is(copy.byteLength, s.byteLength);
    assert.equal(copy.serialize(), s.serialize());
  }
  const copy = deserializeState(s2.serialize());
  const e = await codec.encode(s2, pictures[2], 50);
  const d = await createVP8Codec({ encoders: 1 }).decode(copy, e.frame);
  assert.is(d.state.id, e.state.id);
  assert.ok(samePicture(d.picture, reconstruction(e.state)));
  await codec.close();
});

test('deserializeState rejects corrupted, truncated and foreign bytes with clear errors', async () => {
  const { s2 } = await someStates();
  const good = s2.serialize();
  const cases: [string, Uint8Array, RegExp][] = [
    ['empty', new Uint8Array(0), /shorter/],
    ['truncated', good.subarray(0, good.length - 1), /bytes, expected/],
    ['bad magic', Uint8Array.from(good, (b, i) => (i === 0 ? b ^ 1 : b)), /magic/],
    ['bad version', Uint8Array.from(good, (b, i) => (i === 4 ? 9 : b)), /version/],
    ['flipped picture byte', Uint8Array.from(good, (b, i) => (i === 1000 ? b ^ 0x10 : b)), /checksum/],
    ['bad slot map', Uint8Array.from(good, (b, i) => (i === 7 ? 2 : b)), /slot last/],
    ['zero width', Uint8Array.from(good, (b, i) => (i >= 12 && i < 16 ? 0 : b)), /width/],
  ];
  for (const [name, bytes, pattern] of cases) {
    assert.throws(() => deserializeState(bytes), pattern, name);
  }
  const rng = createRng('state-fuzz');
  for (let i = 0; i < 300; i++) {
    const bytes = new Uint8Array(rng.int(64));
    for (let j = 0; j < bytes.length; j++) bytes[j] = rng.int(256);
    if (rng.next() < 0.5) bytes.set([0x56, 0x50, 0x38, 0x53, 1, 0].slice(0, bytes.length));
    assert.throws(() => deserializeState(bytes), Error);
  }
});

test('mismatched states and pictures are rejected', async () => {
  const { codec, pictures, s2 } = await someStates();
  const other = createVP8Codec({ encoders: 1 });
  const big = other.initialState(128, 96);
  await rejects(codec.encode(big, pictures[0], 30), /picture is 96x80, expected 128x96/);
  const e = await codec.encode(s2, pictures[2], 30);
  await rejects(other.decode(big, e.frame), /inter frame given the initial state/);
  const key = await codec.encode(codec.initialState(96, 80), pictures[0], 30);
  await rejects(other.decode(big, key.frame), /key frame is 96x80 but the state is 128x96/);
  await rejects(codec.encode({ id: 'x', width: 96, height: 80, byteLength: 0, serialize: () => new Uint8Array() }, pictures[0], 30), /not made by the VP8 codec/);
  await codec.close();
  await other.close();
});

test.run();
