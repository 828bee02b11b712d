import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Picture } from '../../src/codec-bridge/types.ts';
import { i420Size } from '../../src/codec-bridge/video/i420.ts';
import { openVideoSource } from '../../src/codec-bridge/video/open-video-source.ts';
import { Y4mFile } from '../../src/codec-bridge/video/y4m-file.ts';
import { createY4mWriter, formatY4mHeader, openY4mReader, parseY4mHeader } from '../../src/codec-bridge/video/y4m.ts';
import { rejects } from '../helpers/rejects.ts';

const dir = mkdtempSync(join(tmpdir(), 'video-y4m-test-'));

function pattern(width: number, height: number, index: number): Picture {
  const data = new Uint8Array(i420Size(width, height));
  for (let i = 0; i < data.length; i++) data[i] = (i * 7 + index * 31) & 255;
  return { width, height, data };
}

function y4mBytes(header: string, frames: Uint8Array[], marker = 'FRAME\n'): Uint8Array {
  const parts = [Buffer.from(header + '\n', 'latin1')];
  for (const frame of frames) parts.push(Buffer.from(marker, 'latin1'), Buffer.from(frame));
  return new Uint8Array(Buffer.concat(parts));
}

async function readAll(source: Uint8Array | string | Readable, name?: string): Promise<Picture[]> {
  const reader = await openY4mReader(source, { name });
  const out: Picture[] = [];
  for await (const picture of reader) out.push(picture);
  return out;
}

test('Y4M: write then read a file, odd size, frames unchanged', async () => {
  const path = join(dir, 'odd.y4m');
  const writer = createY4mWriter(path, { width: 33, height: 17, fps: 25 });
  const frames = [0, 1, 2, 3].map((i) => pattern(33, 17, i));
  for (const frame of frames) await writer.write(frame);
  await writer.close();
  const bytes = readFileSync(path);
  assert.ok(bytes.toString('latin1').startsWith('YUV4MPEG2 W33 H17 F25:1 Ip A1:1 C420jpeg\nFRAME\n'));
  assert.is(bytes.length, 'YUV4MPEG2 W33 H17 F25:1 Ip A1:1 C420jpeg\n'.length + 4 * (6 + i420Size(33, 17)));
  const reader = await openY4mReader(path);
  assert.equal({ ...reader.header }, {
    width: 33, height: 17, frameRate: { num: 25, den: 1 }, fps: 25, interlacing: 'p', aspect: { num: 1, den: 1 }, colourSpace: '420jpeg', extensions: [],
  });
  const read: Picture[] = [];
  for await (const picture of reader) read.push(picture);
  assert.is(read.length, 4);
  read.forEach((picture, i) => {
    assert.is(picture.width, 33);
    assert.is(picture.height, 17);
    assert.ok(Buffer.from(picture.data).equals(Buffer.from(frames[i].data)), `frame ${i}`);
  });
});

test('Y4M: a stream delivering one byte at a time reads the same; FRAME lines with parameters are accepted', async () => {
  const frames = [pattern(4, 2, 0).data, pattern(4, 2, 1).data];
  const bytes = y4mBytes('YUV4MPEG2 W4 H2 F30000:1001 Ip A0:0 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=LIMITED', frames, 'FRAME Ixyz\n');
  const stream = Readable.from((function* () {
    for (const byte of bytes) yield Buffer.from([byte]);
  })());
  const read = await readAll(stream);
  assert.is(read.length, 2);
  assert.equal(Array.from(read[1].data), Array.from(frames[1]));
  const header = parseY4mHeader('YUV4MPEG2 W4 H2 F30000:1001 Ip A0:0 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=LIMITED');
  assert.is(header.interlacing, 'p');
  assert.ok(Math.abs(header.fps - 29.97) < 0.001);
  assert.equal(header.extensions, ['YSCSS=420MPEG2', 'COLORRANGE=LIMITED']);
});

test('Y4M: every 8-bit 4:2:0 colour space is accepted, C defaults to 420jpeg', () => {
  for (const c of ['420', '420jpeg', '420paldv', '420mpeg2']) {
    assert.is(parseY4mHeader(`YUV4MPEG2 W8 H8 F60:1 C${c}`).colourSpace, c);
  }
  assert.is(parseY4mHeader('YUV4MPEG2 W8 H8 F60:1').colourSpace, '420jpeg');
});

test('Y4M: other chroma formats and bit depths are rejected naming the field and value', () => {
  for (const c of ['C422', 'C444', 'C420p10', 'C420p12', 'Cmono', 'C444alpha', 'C411']) {
    assert.throws(() => parseY4mHeader(`YUV4MPEG2 W8 H8 F60:1 ${c}`, 'clip.y4m'), (e: Error) =>
      e.message.includes('clip.y4m') && e.message.includes('field C (colour space)') && e.message.includes(`"${c}"`),
    );
  }
});

test('Y4M: interlaced video (It, Ib, Im) is rejected in one line naming the file, field and value; Ip, I? and no I field are progressive', async () => {
  for (const value of ['t', 'b', 'm']) {
    assert.throws(() => parseY4mHeader(`YUV4MPEG2 W8 H8 F25:1 I${value} A1:1`, 'clip.y4m'), (e: Error) =>
      e.message.startsWith('clip.y4m: ') && e.message.includes('field I (interlacing)') && e.message.includes(`"I${value}"`) &&
      e.message.includes('interlaced') && !e.message.includes('\n'),
    );
  }
  assert.is(parseY4mHeader('YUV4MPEG2 W8 H8 F25:1 Ip').interlacing, 'p');
  assert.is(parseY4mHeader('YUV4MPEG2 W8 H8 F25:1 I?').interlacing, '?');
  assert.is(parseY4mHeader('YUV4MPEG2 W8 H8 F25:1').interlacing, '?');
  // Through the ordinary entry point, from a file: the same one line, with the path.
  const path = join(dir, 'interlaced.y4m');
  writeFileSync(path, y4mBytes('YUV4MPEG2 W4 H2 F25:1 It', [pattern(4, 2, 0).data]));
  await rejects(openVideoSource(path), /^\S*interlaced\.y4m: Y4M header field I \(interlacing\) is "It" \(top field first\): interlaced video is not supported, only progressive \(Ip\)$/);
});

test('Y4M: malformed headers get clear errors', () => {
  const cases: [string, RegExp][] = [
    ['YUV4MPEG W8 H8 F60:1', /a\.y4m: not a Y4M file: expected the signature/],
    ['YUV4MPEG2 H8 F60:1', /lacks the W \(width\)/],
    ['YUV4MPEG2 W8 F60:1', /lacks the H \(height\)/],
    ['YUV4MPEG2 W8 H8', /lacks the F \(frame rate\)/],
    ['YUV4MPEG2 W0 H8 F60:1', /field W \(width\) must be in 1\.\.16384, got 0/],
    ['YUV4MPEG2 W8 H99999 F60:1', /field H \(height\) must be in 1\.\.16384, got 99999/],
    ['YUV4MPEG2 W8 H9999999999 F60:1', /field H must be a positive integer, got "H9999999999"/],
    ['YUV4MPEG2 W-8 H8 F60:1', /field W must be a positive integer/],
    ['YUV4MPEG2 W8 H8 F60', /field F must be two integers "num:den", got "F60"/],
    ['YUV4MPEG2 W8 H8 F60:0', /field F \(frame rate\) must be a positive rate/],
    ['YUV4MPEG2 W8 H8 F60:1 Iz', /field I \(interlacing\)/],
    ['YUV4MPEG2 W8 H8 F60:1 Ax', /field A must be two integers/],
    ['YUV4MPEG2 W8 W8 H8 F60:1', /field W appears twice/],
    ['YUV4MPEG2 W8 H8 F60:1 Q3', /unknown field "Q3"/],
  ];
  for (const [line, pattern] of cases) {
    assert.throws(() => parseY4mHeader(line, 'a.y4m'), pattern, line);
  }
});

test('Y4M: truncated frames, bad markers, long or missing lines name the file and frame', async () => {
  const header = 'YUV4MPEG2 W4 H4 F60:1';
  const frame = pattern(4, 4, 0).data;
  const full = y4mBytes(header, [frame, frame]);
  await rejects(readAll(full.subarray(0, full.length - 1), 'clip.y4m'), /^clip\.y4m: frame 1 is truncated: 23 of 24 bytes/);
  await rejects(readAll(full.subarray(0, full.length - 26), 'clip.y4m'), /^clip\.y4m: frame 1: the FRAME line at byte \d+ is truncated/);
  await rejects(readAll(y4mBytes(header, [frame, frame], 'FRAMX\n'), 'clip.y4m'), /^clip\.y4m: frame 0: expected a "FRAME" marker at byte 22, found "FRAMX"/);
  await rejects(readAll(y4mBytes(header, [frame], 'FRAMES\n'), 'clip.y4m'), /frame 0: expected a "FRAME" marker/);
  const junk = new Uint8Array([...y4mBytes(header, [frame]), 0x00, 0x01, 0x0a]);
  await rejects(readAll(junk, 'clip.y4m'), /frame 1: expected a "FRAME" marker at byte 52, found "\\u0000\\u0001"/);
  await rejects(readAll(y4mBytes(header, [frame], 'FRAME ' + 'x'.repeat(5000) + '\n'), 'clip.y4m'), /frame 0: the FRAME line at byte 22 is longer than 4096 bytes/);
  await rejects(readAll(new Uint8Array(0), 'e.y4m'), /^e\.y4m: not a Y4M file: it is empty/);
  await rejects(readAll(Buffer.from('YUV4MPEG2 W4 H4'), 'h.y4m'), /^h\.y4m: the Y4M header is truncated \(no newline\)/);
  await rejects(readAll(Buffer.from('YUV4MPEG2 ' + 'X'.repeat(5000) + '\n'), 'h.y4m'), /header is longer than 4096 bytes/);
  await rejects(readAll(Buffer.from('GIF89a....'), 'p.y4m'), /^p\.y4m: not a Y4M file/);
  await rejects(readAll(join(dir, 'missing.y4m')), /ENOENT.*missing\.y4m/);
  // Lines of up to 4096 bytes (without the newline) are accepted.
  const longest = 'FRAME ' + 'x'.repeat(4090) + '\n';
  assert.is((await readAll(y4mBytes(header, [frame], longest))).length, 1);
  await rejects(readAll(y4mBytes(header, [frame], 'FRAME ' + 'x'.repeat(4091) + '\n'), 'clip.y4m'), /the FRAME line at byte 22 is longer than 4096 bytes/);
  const failing = new Readable({
    read() {
      this.destroy(new Error('connection reset'));
    },
  });
  await rejects(readAll(failing, 'net.y4m'), /^net\.y4m: read failed: connection reset/);
  await rejects(readAll(Readable.from(['YUV4MPEG2 W4 H4 F1:1\n']), 'text.y4m'), /^text\.y4m: the stream must deliver bytes \(Buffer\/Uint8Array\), got string/);
  // A header alone is a valid file with no frames.
  assert.is((await readAll(Buffer.from(header + '\n'))).length, 0);
});

test('Y4M writer: rejects wrong pictures and bad headers, writes nothing for a bad header', async () => {
  assert.throws(() => createY4mWriter(join(dir, 'bad.y4m'), { width: 0, height: 4, fps: 30 }), /width must be an integer in 1\.\.16384, got 0/);
  assert.throws(() => createY4mWriter(join(dir, 'bad.y4m'), { width: 4, height: 4, fps: -1 }), /frame rate must be a positive number/);
  assert.throws(() => createY4mWriter(join(dir, 'bad.y4m'), { width: 4, height: 4, fps: 5000 }), /bad\.y4m: Y4M header field F \(frame rate\) must be a positive rate up to 1000/);
  assert.not.ok(existsSync(join(dir, 'bad.y4m')), 'a rejected header must not create the file');
  const sink = new PassThrough();
  const writer = createY4mWriter(sink, { width: 4, height: 4, fps: 30 }, { name: 'out.y4m' });
  await rejects(writer.write(pattern(4, 2, 0)), /out\.y4m: frame 0: picture is 4x2, expected 4x4/);
  await rejects(writer.write({ width: 4, height: 4, data: new Uint8Array(23) }), /picture data is 23 bytes, expected 24/);
  sink.resume();
  await writer.write(pattern(4, 4, 0));
  await writer.close();
  await rejects(writer.write(pattern(4, 4, 0)), /out\.y4m: write after close/);
  assert.throws(() => formatY4mHeader({ width: 4, height: 4, fps: 30, extensions: ['a b'] }), /X field may not contain white space/);
});

test('Y4M writer: waits for a slow destination (backpressure) and reports its errors', async () => {
  let buffered = 0;
  let maxBuffered = 0;
  const chunks: Buffer[] = [];
  const slow = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, callback) {
      buffered += chunk.length;
      maxBuffered = Math.max(maxBuffered, buffered);
      chunks.push(chunk);
      setImmediate(() => {
        buffered -= chunk.length;
        callback();
      });
    },
  });
  const writer = createY4mWriter(slow, { width: 16, height: 16, fps: 30 });
  const frameBytes = 6 + i420Size(16, 16);
  for (let i = 0; i < 20; i++) await writer.write(pattern(16, 16, i));
  // Each write waited for the previous one to drain: never more than one frame in flight.
  assert.ok(maxBuffered <= frameBytes + 64, `buffered ${maxBuffered}`);
  await writer.close();
  const read = await readAll(Buffer.concat(chunks));
  assert.is(read.length, 20);
  assert.equal(Array.from(read[19].data), Array.from(pattern(16, 16, 19).data));

  const failing = new Writable({
    highWaterMark: 16,
    write(_chunk, _encoding, callback) {
      setImmediate(() => callback(new Error('disk full')));
    },
  });
  const broken = createY4mWriter(failing, { width: 16, height: 16, fps: 30 }, { name: 'full.y4m' });
  await rejects(
    (async () => {
      for (let i = 0; i < 5; i++) await broken.write(pattern(16, 16, i));
      await broken.close();
    })(),
    /full\.y4m: write failed: disk full/,
  );
  await rejects(createY4mWriter(join(dir, 'no-such-dir', 'x.y4m'), { width: 4, height: 4, fps: 1 }).close(), /x\.y4m: write failed: ENOENT/);
});

test('Y4M file: random access by frame index through the offset index, memory cache equal', async () => {
  const path = join(dir, 'index.y4m');
  const frames = [0, 1, 2, 3, 4].map((i) => pattern(6, 5, i).data);
  writeFileSync(path, y4mBytes('YUV4MPEG2 W6 H5 F30:1 C420', frames));
  for (const cache of ['none', 'memory'] as const) {
    const file = await Y4mFile.open(path, { cache });
    assert.is(file.frameCount, 5);
    for (const k of [4, 0, 2, 2, 1, 3]) {
      const picture = await file.read(k);
      assert.equal(Array.from(picture.data), Array.from(frames[k]), `${cache} frame ${k}`);
      picture.data.fill(0); // the caller owns the returned buffer
    }
    assert.equal(Array.from((await file.read(2)).data), Array.from(frames[2]));
    await rejects(file.read(5), /frame index must be an integer in 0\.\.4, got 5/);
    await file.close();
    await rejects(file.read(0), /is closed/);
  }
  const truncated = join(dir, 'truncated.y4m');
  writeFileSync(truncated, y4mBytes('YUV4MPEG2 W6 H5 F30:1', frames).subarray(0, 200));
  await rejects(Y4mFile.open(truncated), /truncated\.y4m: frame 3 is truncated: 10 of 48 bytes/);
  const badMarker = join(dir, 'marker.y4m');
  writeFileSync(badMarker, y4mBytes('YUV4MPEG2 W6 H5 F30:1', frames, 'FRAME\r\n'));
  await rejects(Y4mFile.open(badMarker), /marker\.y4m: frame 0: expected a "FRAME" marker/);
  const empty = join(dir, 'header-only.y4m');
  writeFileSync(empty, 'YUV4MPEG2 W6 H5 F30:1\n');
  await rejects(Y4mFile.open(empty), /header-only\.y4m: the Y4M file has no frames/);
  const c422 = join(dir, 'c422.y4m');
  writeFileSync(c422, 'YUV4MPEG2 W6 H5 F30:1 C422\n');
  await rejects(Y4mFile.open(c422), /c422\.y4m: Y4M header field C \(colour space\) "C422" is not supported/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
