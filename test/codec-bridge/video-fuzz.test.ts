// Seeded fuzzing of the Y4M and IVF parsers: random bytes, truncations, bit
// flips and random chunking must end in a result or an Error, never a crash,
// a hang or a non-Error throw.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng, type Rng } from '../../src/common/random.ts';
import { i420Size } from '../../src/codec-bridge/video/i420.ts';
import { openIvfReader } from '../../src/codec-bridge/video/ivf.ts';
import { Y4mFile } from '../../src/codec-bridge/video/y4m-file.ts';
import { openY4mReader } from '../../src/codec-bridge/video/y4m.ts';

const dir = mkdtempSync(join(tmpdir(), 'video-fuzz-test-'));

function validY4m(): { bytes: Buffer; boundaries: number[] } {
  const parts: Buffer[] = [Buffer.from('YUV4MPEG2 W8 H6 F30:1 Ip A1:1 C420paldv XTEST\n', 'latin1')];
  const boundaries = [parts[0].length];
  for (let i = 0; i < 3; i++) {
    parts.push(Buffer.from(i === 1 ? 'FRAME Ip\n' : 'FRAME\n', 'latin1'), Buffer.alloc(i420Size(8, 6), i * 40 + 3));
    boundaries.push(boundaries[boundaries.length - 1] + parts[parts.length - 2].length + parts[parts.length - 1].length);
  }
  return { bytes: Buffer.concat(parts), boundaries };
}

function validIvf(): { bytes: Buffer; boundaries: number[] } {
  const head = Buffer.alloc(32);
  head.write('DKIF', 0, 'latin1');
  head.writeUInt16LE(32, 6);
  head.write('VP80', 8, 'latin1');
  head.writeUInt16LE(8, 12);
  head.writeUInt16LE(6, 14);
  head.writeUInt32LE(30, 16);
  head.writeUInt32LE(1, 20);
  head.writeUInt32LE(3, 24);
  const parts = [head];
  const boundaries = [32];
  for (let i = 0; i < 3; i++) {
    const frame = Buffer.alloc(12 + 10 + i * 7, 0x55 + i);
    frame.writeUInt32LE(10 + i * 7, 0);
    frame.writeUInt32LE(i, 4);
    frame.writeUInt32LE(0, 8);
    parts.push(frame);
    boundaries.push(boundaries[boundaries.length - 1] + frame.length);
  }
  return { bytes: Buffer.concat(parts), boundaries };
}

function randomBytes(rng: Rng, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = rng.int(256);
  return out;
}

function flipBits(rng: Rng, bytes: Buffer, flips: number): Buffer {
  const out = Buffer.from(bytes);
  for (let i = 0; i < flips; i++) out[rng.int(out.length)] ^= 1 << rng.int(8);
  return out;
}

/** Delivers `bytes` as a stream of random-sized chunks. */
function chunked(rng: Rng, bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + rng.int(40);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(chunks);
}

type Outcome = { ok: true; frames: number } | { ok: false; message: string };

/** Runs `parse` to completion; a non-Error throw or a parse taking longer than 2 s fails the test. */
async function outcome(parse: () => Promise<number>, what: string): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`HANG: ${what}`)), 2000);
  });
  try {
    return { ok: true, frames: await Promise.race([parse(), timeout]) };
  } catch (error) {
    assert.instance(error, Error, `${what}: threw a non-Error ${String(error)}`);
    const message = (error as Error).message;
    assert.not.match(message, /^HANG/, message);
    assert.not.instance(error, TypeError, `${what}: a TypeError suggests a crash: ${message}`);
    assert.ok(message.startsWith('fuzz:'), `${what}: the message must name the source: ${message}`);
    return { ok: false, message };
  } finally {
    clearTimeout(timer);
  }
}

async function parseY4m(source: Buffer | Readable): Promise<number> {
  let frames = 0;
  for await (const picture of await openY4mReader(source, { name: 'fuzz:' })) {
    assert.is(picture.data.length, i420Size(picture.width, picture.height));
    frames++;
  }
  return frames;
}

async function parseIvf(source: Buffer | Readable): Promise<number> {
  let frames = 0;
  for await (const frame of await openIvfReader(source, { name: 'fuzz:' })) {
    assert.ok(frame.data instanceof Uint8Array);
    frames++;
  }
  return frames;
}

for (const [format, valid, parse, signature] of [
  ['Y4M', validY4m, parseY4m, 'YUV4MPEG2 '],
  ['IVF', validIvf, parseIvf, 'DKIF'],
] as const) {
  test(`${format} fuzz: every truncation fails with a message unless it falls on a frame boundary`, async () => {
    const { bytes, boundaries } = valid();
    for (let cut = 0; cut <= bytes.length; cut++) {
      const result = await outcome(() => parse(bytes.subarray(0, cut)), `${format} cut at ${cut}`);
      const boundary = boundaries.indexOf(cut);
      if (boundary >= 0) assert.equal(result, { ok: true, frames: boundary }, `cut at ${cut}`);
      else assert.is(result.ok, false, `cut at ${cut} must fail`);
    }
  });

  test(`${format} fuzz: random bytes, bit flips and random chunking (seeded)`, async () => {
    const rng = createRng(`video-fuzz/${format}`);
    const { bytes } = valid();
    const counts = { ok: 0, failed: 0 };
    for (let i = 0; i < 3000; i++) {
      const kind = i % 4;
      let input: Buffer;
      if (kind === 0) input = randomBytes(rng, rng.int(300));
      else if (kind === 1) input = Buffer.concat([Buffer.from(signature, 'latin1'), randomBytes(rng, rng.int(300))]);
      else input = flipBits(rng, bytes, 1 + rng.int(kind === 2 ? 2 : 12));
      const source = rng.next() < 0.5 ? input : chunked(rng, input);
      const result = await outcome(() => parse(source), `${format} case ${i} (kind ${kind})`);
      counts[result.ok ? 'ok' : 'failed']++;
    }
    // Both outcomes occur: flips in the frame payload parse, most others fail.
    assert.ok(counts.ok > 100 && counts.failed > 1000, JSON.stringify(counts));
  });
}

test('Y4M file index fuzz: bit-flipped and truncated files open or fail with a message', async () => {
  const rng = createRng('video-fuzz/y4m-file');
  const { bytes, boundaries } = validY4m();
  const path = join(dir, 'fuzz.y4m');
  let failed = 0;
  for (let i = 0; i < 150; i++) {
    const input = i % 2 === 0 ? flipBits(rng, bytes, 1 + rng.int(4)) : bytes.subarray(0, rng.int(bytes.length + 1));
    writeFileSync(path, input);
    const result = await outcome(async () => {
      try {
        const file = await Y4mFile.open(path);
        const count = file.frameCount;
        for (let k = 0; k < count; k++) await file.read(k);
        await file.close();
        return count;
      } catch (error) {
        throw error instanceof Error && !error.message.startsWith(path) ? error : new Error('fuzz:' + (error as Error).message);
      }
    }, `Y4M file case ${i}`);
    if (!result.ok) failed++;
    if (i % 2 === 1 && result.ok) assert.ok(boundaries.includes(input.length) && input.length > boundaries[0], `truncation to ${input.length} must fail`);
  }
  assert.ok(failed > 30, `failed ${failed}`);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
