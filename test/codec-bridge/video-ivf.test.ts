import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createIvfWriter, formatIvfHeader, openIvfReader, parseIvfHeader, type IvfFrame, type IvfReadOptions } from '../../src/codec-bridge/video/ivf.ts';
import { rejects } from '../helpers/rejects.ts';
import { ivfHeader } from '../helpers/ivf-header.ts';

const dir = mkdtempSync(join(tmpdir(), 'video-ivf-test-'));
const FOUR_PEOPLE = '../shared/video/FourPeople_1280x720_60.ivf';

async function readAll(source: Uint8Array | string, options: IvfReadOptions = {}): Promise<IvfFrame[]> {
  const out: IvfFrame[] = [];
  for await (const frame of await openIvfReader(source, options)) out.push(frame);
  return out;
}

function frameBytes(size: number, timestampLow: number, timestampHigh = 0, fill = 7): Buffer {
  const b = Buffer.alloc(12 + size, fill);
  b.writeUInt32LE(size, 0);
  b.writeUInt32LE(timestampLow, 4);
  b.writeUInt32LE(timestampHigh, 8);
  return b;
}

test('IVF: write then read a file; the frame count is patched in on close', async () => {
  const path = join(dir, 'a.ivf');
  const writer = createIvfWriter(path, { width: 640, height: 360, fps: 30000 / 1001 });
  const payloads = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array(5000).fill(9)];
  await writer.write({ data: payloads[0] });
  await writer.write({ data: payloads[1], timestamp: 5 });
  await writer.write({ data: payloads[2], timestamp: 2 ** 40 + 3 });
  await writer.close();
  const bytes = readFileSync(path);
  assert.is(bytes.length, 32 + 3 * 12 + 3 + 0 + 5000);
  const reader = await openIvfReader(path);
  assert.equal({ ...reader.header }, { fourcc: 'VP80', width: 640, height: 360, rate: 30000, scale: 1001, frameCount: 3 });
  const frames: IvfFrame[] = [];
  for await (const frame of reader) frames.push(frame);
  assert.equal(frames.map((f) => [f.index, f.timestamp, f.data.length]), [[0, 0, 3], [1, 5, 0], [2, 2 ** 40 + 3, 5000]]);
  assert.equal(Array.from(frames[0].data), [1, 2, 3]);
  assert.ok(frames[2].data.every((b) => b === 9));
});

test('IVF: a stream destination keeps the given frame count; an empty file has just the header', async () => {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const writer = createIvfWriter(sink, { width: 8, height: 8, fps: 60, fourcc: 'VP90', frameCount: 2 });
  await writer.write({ data: new Uint8Array([4]) });
  await writer.write({ data: new Uint8Array([5]) });
  await writer.close();
  const bytes = Buffer.concat(chunks);
  const head = parseIvfHeader(bytes, 's.ivf', { fourcc: 'VP90' });
  assert.is(head.frameCount, 2);
  assert.equal((await readAll(bytes, { fourcc: null })).map((f) => [f.timestamp, f.data[0]]), [[0, 4], [1, 5]]);
  const empty = join(dir, 'empty.ivf');
  await createIvfWriter(empty, { width: 8, height: 8 }).close();
  assert.equal(Array.from(readFileSync(empty)), Array.from(formatIvfHeader({ width: 8, height: 8 })));
  assert.is((await readAll(empty)).length, 0);
});

test('IVF: header errors name the field and value', async () => {
  const cases: [Buffer, RegExp][] = [
    [ivfHeader({ signature: 'RIFF' }), /^h\.ivf: not an IVF file: signature "RIFF", expected "DKIF"/],
    [ivfHeader({ version: 1 }), /IVF header field version is 1, only version 0 is known/],
    [ivfHeader({ headerSize: 48 }), /IVF header field header size is 48, expected 32/],
    [ivfHeader({ fourcc: 'VP90' }), /IVF header field fourcc is "VP90", expected "VP80"/],
    [ivfHeader({ width: 0 }), /IVF header field width must be in 1\.\.16384, got 0/],
    [ivfHeader({ height: 65535 }), /IVF header field height must be in 1\.\.16384, got 65535/],
    [ivfHeader({ rate: 0 }), /rate\/scale \(time base\) must both be positive, got 0\/1/],
    [ivfHeader({ scale: 0 }), /got 30\/0/],
    [ivfHeader().subarray(0, 20), /^h\.ivf: the IVF file header is truncated: 20 of 32 bytes/],
    [Buffer.alloc(0), /^h\.ivf: not an IVF file: it is empty/],
  ];
  for (const [bytes, pattern] of cases) await rejects(readAll(bytes, { name: 'h.ivf' }), pattern);
  await rejects(readAll(join(dir, 'missing.ivf')), /ENOENT.*missing\.ivf/);
});

test('IVF: truncated, oversized and out-of-range frames name the file and frame', async () => {
  const good = Buffer.concat([ivfHeader(), frameBytes(10, 0), frameBytes(20, 1)]);
  await rejects(readAll(good.subarray(0, good.length - 1), { name: 't.ivf' }), /^t\.ivf: frame 1 is truncated: 19 of 20 bytes/);
  await rejects(readAll(good.subarray(0, 32 + 22 + 5), { name: 't.ivf' }), /^t\.ivf: frame 1: the frame header at byte 54 is truncated: 5 of 12 bytes/);
  const huge = Buffer.concat([ivfHeader(), frameBytes(0, 0).subarray(0, 12)]);
  huge.writeUInt32LE(0xfffffff0, 32);
  await rejects(readAll(huge, { name: 'big.ivf' }), /^big\.ivf: frame 0: frame size 4294967280 at byte 32 exceeds the cap of 74752 bytes/);
  await rejects(readAll(Buffer.concat([ivfHeader(), frameBytes(100, 0)]), { maxFrameBytes: 99 }), /frame size 100 at byte 32 exceeds the cap of 99 bytes/);
  await rejects(readAll(Buffer.concat([ivfHeader(), frameBytes(1, 0, 0x00200000)]), { name: 'ts.ivf' }), /^ts\.ivf: frame 0: timestamp 9007199254740992 at byte 36 is beyond 2\^53/);
  assert.is((await readAll(Buffer.concat([ivfHeader(), frameBytes(1, 0xffffffff, 0x001fffff)])))[0].timestamp, Number.MAX_SAFE_INTEGER);
  await rejects(openIvfReader(good, { maxFrameBytes: -1 }), /maxFrameBytes must be an integer >= 0, got -1/);
});

test('IVF writer: bad arguments are rejected before anything is written', async () => {
  assert.throws(() => createIvfWriter(join(dir, 'x.ivf'), { width: 70000, height: 8 }), /width must be an integer in 1\.\.16384, got 70000/);
  assert.throws(() => createIvfWriter(join(dir, 'x.ivf'), { width: 8, height: 8, fourcc: 'VP8' }), /fourcc must be 4 printable characters/);
  assert.throws(() => createIvfWriter(join(dir, 'x.ivf'), { width: 8, height: 8, fps: 0 }), /frame rate must be a positive number/);
  const writer = createIvfWriter(new PassThrough().resume(), { width: 8, height: 8 }, { name: 'w.ivf' });
  await rejects(writer.write({ data: [1, 2] as unknown as Uint8Array }), /^w\.ivf: frame 0: data must be a Uint8Array/);
  await rejects(writer.write({ data: new Uint8Array(1), timestamp: -1 }), /timestamp must be an integer in 0\.\.2\^53, got -1/);
  await rejects(writer.write({ data: new Uint8Array(1), timestamp: 1.5 }), /got 1\.5/);
  await writer.close();
});

test('IVF: the FourPeople clip parses (601 VP8 frames, 1280x720 at 60 fps)', async () => {
  const reader = await openIvfReader(FOUR_PEOPLE);
  assert.is(reader.header.fourcc, 'VP80');
  assert.is(reader.header.width, 1280);
  assert.is(reader.header.height, 720);
  assert.equal([reader.header.rate, reader.header.scale], [60, 1]);
  assert.is(reader.header.frameCount, 601);
  let count = 0;
  let last = -1;
  for await (const frame of reader) {
    assert.is(frame.index, count);
    assert.ok(frame.timestamp > last, `timestamps increase at frame ${count}`);
    // Every VP8 frame begins with a 3-byte frame tag; a key frame (bit 0 clear) carries the start code 9d 01 2a.
    if ((frame.data[0] & 1) === 0) assert.equal(Array.from(frame.data.subarray(3, 6)), [0x9d, 0x01, 0x2a]);
    last = frame.timestamp;
    count++;
  }
  assert.is(count, 601);
});

test('IVF: copying the FourPeople clip through the reader and writer gives the same bytes', async () => {
  const reader = await openIvfReader(FOUR_PEOPLE);
  const { width, height, rate, scale } = reader.header;
  const copy = join(dir, 'copy.ivf');
  const writer = createIvfWriter(copy, { width, height, fps: { num: rate, den: scale } });
  for await (const frame of reader) await writer.write(frame);
  await writer.close();
  assert.ok(readFileSync(copy).equals(readFileSync(FOUR_PEOPLE)), 'byte-identical copy');
});

test('IVF: breaking out of iteration releases the file', async () => {
  const path = join(dir, 'many.ivf');
  writeFileSync(path, Buffer.concat([ivfHeader(), ...Array.from({ length: 50 }, (_, i) => frameBytes(100, i))]));
  const reader = await openIvfReader(path);
  for await (const frame of reader) if (frame.index === 3) break;
  await rejects(reader.readFrame(), /the IVF reader is closed/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
