import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OVERHEAD_BYTES } from '../../src/net/sim-network.ts';
import { DEFAULT_MTU } from '../../src/link-emu/link.ts';
import { decodeSegment, DEFAULT_MSS, encodeSegment, FLAG_ACK, FLAG_FIN, FLAG_SACK, HEADER_BYTES, TcpSegmentError } from '../../src/tcp/segment.ts';
import { isToolkitError } from '../../src/common/errors.ts';

test('a segment survives encoding, 48-bit sequence numbers included', () => {
  const segment = { flags: FLAG_ACK | FLAG_FIN, connection: 4_000_000_000, seq: 2 ** 40 + 12345, ack: 2 ** 47 + 3, window: 2 ** 32 - 1, length: 100 };
  const bytes = encodeSegment(segment);
  assert.is(bytes.length, HEADER_BYTES + 100);
  assert.equal(decodeSegment(bytes), segment);
});

test('SACK blocks ride in an ACK instead of payload, 12 bytes each', () => {
  const segment = { flags: FLAG_ACK | FLAG_SACK, connection: 2, seq: 0, ack: 1000, window: 5, length: 0, sack: [[5000, 6000], [2000, 3000]] as Array<[number, number]> };
  const bytes = encodeSegment(segment);
  assert.is(bytes.length, HEADER_BYTES + 24);
  assert.equal(decodeSegment(bytes), segment);
  assert.throws(() => decodeSegment(bytes.slice(0, HEADER_BYTES + 13)), (e: unknown) => e instanceof TcpSegmentError && e.field === 'sack' && e.value === 13);
  assert.throws(() => encodeSegment({ ...segment, flags: FLAG_ACK }), /SACK flag/);
});

test('a full-size segment is exactly one 1504-byte delivery opportunity on the link', () => {
  assert.is(encodeSegment({ flags: 0, connection: 0, seq: 0, ack: 0, window: 0, length: DEFAULT_MSS }).length + DEFAULT_OVERHEAD_BYTES, DEFAULT_MTU);
});

test('a malformed datagram is a TcpSegmentError (ERR_BAD_INPUT) naming the field and value', () => {
  const good = encodeSegment({ flags: FLAG_ACK, connection: 1, seq: 0, ack: 10, window: 100, length: 0 });
  const cases: Array<[Uint8Array, string, number]> = [
    [good.slice(0, 10), 'length', 10],
    [Uint8Array.from(good, (b, i) => (i === 0 ? 0x55 : b)), 'magic', 0x55],
    [Uint8Array.from(good, (b, i) => (i === 1 ? 0x80 : b)), 'flags', 0x80],
    [Uint8Array.from(good, (b, i) => (i === 3 ? 7 : b)), 'reserved', 7],
  ];
  for (const [bytes, field, value] of cases) {
    try {
      decodeSegment(bytes);
      assert.unreachable(`decoded a bad ${field}`);
    } catch (error) {
      assert.instance(error, TcpSegmentError);
      assert.ok(isToolkitError(error, 'ERR_BAD_INPUT'));
      assert.is((error as TcpSegmentError).field, field);
      assert.is((error as TcpSegmentError).value, value);
      assert.match((error as Error).message, /^tcp segment: /);
    }
  }
});

test('encoding refuses out-of-range fields', () => {
  assert.throws(() => encodeSegment({ flags: 0, connection: 0, seq: 2 ** 48, ack: 0, window: 0, length: 0 }), /seq/);
  assert.throws(() => encodeSegment({ flags: 0, connection: 0, seq: 0, ack: 0, window: 0, length: 1.5 }), /length/);
});

test.run();
