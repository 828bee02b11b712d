import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ACK_BASE_BYTES, DatagramError, FRAGMENT_OVERHEAD_BYTES, MAX_DATAGRAM_BYTES, MAX_FRAGMENT_PAYLOAD,
  decodeDatagram, encodeAck, encodeFragment, splitFrame, type FragmentDatagram,
} from '../../src/salsify/datagram.ts';
import { crc32 } from '../../src/salsify/crc32.ts';
import { createRng } from '../../src/common/random.ts';

function frameOf(length: number, seed = 1): Uint8Array {
  const rng = createRng(seed);
  const f = new Uint8Array(length);
  for (let i = 0; i < length; i++) f[i] = rng.int(256);
  return f;
}

function fragmentsOf(frame: Uint8Array, frameNumber = 5): Uint8Array[] {
  const pieces = splitFrame(frame);
  return pieces.map((payload, i) => encodeFragment({
    connectionId: 0xdeadbeef, frameNumber, fragmentIndex: i, fragmentCount: pieces.length, width: 1280, height: 720,
    sourceStateId: '0123456789abcdef', targetStateId: 'fedcba9876543210', timeSincePreviousFrameUs: 16667,
    frameLength: frame.length, frameChecksum: crc32(frame), payload,
  }));
}

test('crc32 matches the standard check value', () => {
  assert.is(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  const b = new TextEncoder().encode('123456789');
  assert.is(crc32(b, 4, 9, crc32(b, 0, 4)), 0xcbf43926);
});

test('a frame round-trips through its fragments; datagrams fit the 1472-byte limit', () => {
  for (const length of [1, 2, MAX_FRAGMENT_PAYLOAD, MAX_FRAGMENT_PAYLOAD + 1, 10_000, 123_457]) {
    const frame = frameOf(length);
    const datagrams = fragmentsOf(frame);
    const out = new Uint8Array(length);
    let offset = 0;
    datagrams.forEach((bytes, i) => {
      assert.ok(bytes.length <= MAX_DATAGRAM_BYTES, `datagram of ${bytes.length} bytes`);
      const d = decodeDatagram(bytes) as FragmentDatagram;
      assert.is(d.type, 'fragment');
      assert.is(d.fragmentIndex, i);
      assert.is(d.fragmentCount, datagrams.length);
      assert.is(d.connectionId, 0xdeadbeef);
      assert.is(d.frameNumber, 5);
      assert.is(d.width, 1280);
      assert.is(d.height, 720);
      assert.is(d.sourceStateId, '0123456789abcdef');
      assert.is(d.targetStateId, 'fedcba9876543210');
      assert.is(d.timeSincePreviousFrameUs, 16667);
      assert.is(d.frameChecksum, crc32(frame));
      out.set(d.payload, offset);
      offset += d.payload.length;
    });
    assert.is(offset, length);
    assert.equal(out, frame);
  }
});

test('an acknowledgement round-trips', () => {
  const ack = {
    connectionId: 7, frameNumber: 1234, fragmentIndex: 3, interArrivalUs: 5300,
    currentStateId: '00000000000000ff', heldStateIds: ['00000000000000ff', 'a0a0a0a0a0a0a0a0'],
  };
  const bytes = encodeAck(ack);
  assert.is(bytes.length, ACK_BASE_BYTES + 16);
  assert.equal(decodeDatagram(bytes), { type: 'ack', ...ack });
});

test('encoders reject out-of-range fields with a message naming them', () => {
  const base = {
    connectionId: 1, frameNumber: 1, fragmentIndex: 0, fragmentCount: 1, width: 16, height: 16,
    sourceStateId: '0000000000000000', targetStateId: '0000000000000001', timeSincePreviousFrameUs: 0,
    frameLength: 3, frameChecksum: 0, payload: new Uint8Array(3),
  };
  assert.throws(() => encodeFragment({ ...base, fragmentIndex: 1 }), /fragment index/);
  assert.throws(() => encodeFragment({ ...base, width: 0 }), /width/);
  assert.throws(() => encodeFragment({ ...base, payload: new Uint8Array(2) }), /must carry 3 bytes/);
  assert.throws(() => encodeFragment({ ...base, sourceStateId: 'XYZ' }), /state id/);
  assert.throws(() => encodeAck({ connectionId: -1, frameNumber: 0, fragmentIndex: 0, interArrivalUs: 0, currentStateId: '0000000000000000', heldStateIds: [] }), /connection id/);
  assert.throws(() => encodeAck({ connectionId: 1, frameNumber: 0, fragmentIndex: 0, interArrivalUs: 0, currentStateId: '0000000000000000', heldStateIds: new Array(17).fill('0000000000000000') }), /held states/);
});

function problemOf(bytes: Uint8Array): string {
  try {
    decodeDatagram(bytes);
    return 'ok';
  } catch (e) {
    if (!(e instanceof DatagramError)) throw e;
    assert.ok(e.message.length > 10);
    return e.problem;
  }
}

test('truncated, corrupted and foreign-format datagrams are rejected with the right problem', () => {
  const [first] = fragmentsOf(frameOf(3000));
  assert.is(problemOf(first), 'ok');
  assert.is(problemOf(first.subarray(0, 10)), 'truncated');
  assert.is(problemOf(first.subarray(0, first.length - 1)), 'checksum');
  const flipped = first.slice();
  flipped[100] ^= 0x10;
  assert.is(problemOf(flipped), 'checksum');
  const magic = first.slice();
  magic[0] = 0x45;
  assert.is(problemOf(magic), 'magic');
  const type = first.slice();
  type[1] = 9;
  assert.is(problemOf(type), 'type');
});

/** Re-seals a datagram whose fields were edited, so that field validation (not the CRC) must catch the edit. */
function reseal(bytes: Uint8Array): Uint8Array {
  new DataView(bytes.buffer).setUint32(bytes.length - 4, crc32(bytes, 0, bytes.length - 4));
  return bytes;
}

test('inconsistent fields are caught even under a valid checksum', () => {
  const datagrams = fragmentsOf(frameOf(5001)); // 4 pieces: 1251, 1251, 1251, 1248
  const edit = (i: number, f: (v: DataView) => void) => {
    const b = datagrams[i].slice();
    f(new DataView(b.buffer));
    return problemOf(reseal(b));
  };
  assert.is(edit(0, (v) => v.setUint16(10, 4)), 'field'); // index >= count
  assert.is(edit(0, (v) => v.setUint16(12, 0)), 'field'); // zero count
  assert.is(edit(0, (v) => v.setUint16(14, 0)), 'field'); // zero width
  assert.is(edit(0, (v) => v.setUint32(38, 0)), 'field'); // zero length
  assert.is(edit(0, (v) => v.setUint32(38, 4990)), 'length'); // payload no longer matches
  assert.is(edit(3, (v) => v.setUint16(10, 2)), 'length'); // last piece claims a full slot
  const ack = encodeAck({ connectionId: 1, frameNumber: 0, fragmentIndex: 0, interArrivalUs: 0, currentStateId: '0000000000000000', heldStateIds: ['0000000000000001'] });
  const a = ack.slice();
  a[24] = 2;
  assert.is(problemOf(reseal(a)), 'length');
  a[24] = 200;
  assert.is(problemOf(reseal(a)), 'field');
});

test('fuzz: random bytes and mutated datagrams never crash the decoder (seeded)', () => {
  const rng = createRng('datagram-fuzz');
  const valid = [...fragmentsOf(frameOf(4000)), encodeAck({ connectionId: 3, frameNumber: 9, fragmentIndex: 1, interArrivalUs: 1, currentStateId: '0000000000000000', heldStateIds: ['0000000000000002'] })];
  const counts: Record<string, number> = {};
  for (let n = 0; n < 20_000; n++) {
    let bytes: Uint8Array;
    const kind = rng.int(4);
    if (kind === 0) {
      bytes = new Uint8Array(rng.int(1600));
      for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
      if (bytes.length > 1 && rng.next() < 0.5) { bytes[0] = 0xa5; bytes[1] = 1 + rng.int(2); }
    } else {
      const src = valid[rng.int(valid.length)];
      bytes = src.slice();
      if (kind === 1) bytes = bytes.subarray(0, rng.int(bytes.length));
      else {
        const flips = 1 + rng.int(4);
        for (let k = 0; k < flips; k++) bytes[rng.int(bytes.length)] ^= 1 << rng.int(8);
        if (kind === 3) reseal(bytes);
      }
    }
    const p = problemOf(bytes);
    counts[p] = (counts[p] ?? 0) + 1;
  }
  // Every rejection path was exercised, and random bytes essentially never pass.
  for (const p of ['truncated', 'magic', 'type', 'checksum']) assert.ok((counts[p] ?? 0) > 0, `no ${p} rejections: ${JSON.stringify(counts)}`);
  assert.ok((counts.field ?? 0) + (counts.length ?? 0) > 0, JSON.stringify(counts));
});

test('splitFrame always yields pieces the decoder accepts', () => {
  const rng = createRng('split');
  for (let n = 0; n < 300; n++) {
    const length = 1 + rng.int(30_000);
    const max = 1 + rng.int(MAX_FRAGMENT_PAYLOAD);
    const pieces = splitFrame(new Uint8Array(length), max);
    assert.is(pieces.reduce((s, p) => s + p.length, 0), length);
    for (const [i, payload] of pieces.entries()) {
      assert.ok(payload.length <= max && payload.length > 0);
      const bytes = encodeFragment({
        connectionId: 1, frameNumber: 1, fragmentIndex: i, fragmentCount: pieces.length, width: 2, height: 2,
        sourceStateId: '0000000000000000', targetStateId: '0000000000000000', timeSincePreviousFrameUs: 0,
        frameLength: length, frameChecksum: 0, payload,
      });
      assert.is(bytes.length, payload.length + FRAGMENT_OVERHEAD_BYTES);
      assert.is(problemOf(bytes), 'ok');
    }
  }
});

test.run();
