import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../src/common/random.ts';
import { crc32, crc32Table } from '../../src/salsify/crc32.ts';

test('crc32 (native when Node has it) equals the table-driven CRC-32 on any bytes, range and seed', () => {
  const rng = createRng('crc32');
  assert.is(crc32Table(new TextEncoder().encode('123456789')), 0xcbf43926);
  for (let n = 0; n < 300; n++) {
    const bytes = new Uint8Array(rng.int(3000));
    for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
    const start = rng.int(bytes.length + 1);
    const end = start + rng.int(bytes.length - start + 1);
    const seed = rng.next() < 0.5 ? 0 : rng.int(2 ** 32);
    assert.is(crc32(bytes, start, end, seed), crc32Table(bytes, start, end, seed), `case ${n}`);
    assert.is(crc32(bytes), crc32Table(bytes));
    assert.is(crc32(bytes.subarray(start, end)), crc32Table(bytes, start, end));
  }
});

test.run();
