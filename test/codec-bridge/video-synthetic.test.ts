import { deflateSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chromaHeight, chromaWidth, i420Size } from '../../src/codec-bridge/video/i420.ts';
import { SyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';

/** SHA-256 (first 16 hex digits) of frame 10 of the 64x36 scene with seed 1. */
const FINGERPRINT = '70d54df55891d994';

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

function meanAbsDifference(a: Uint8Array, b: Uint8Array, length: number): number {
  let sum = 0;
  for (let i = 0; i < length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / length;
}

function meanAbsGradient(plane: Uint8Array, width: number, height: number): number {
  let sum = 0;
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      const p = y * width + x;
      sum += Math.abs(plane[p + 1] - plane[p]) + Math.abs(plane[p + width] - plane[p]);
    }
  }
  return sum / (2 * (width - 1) * (height - 1));
}

function standardDeviation(plane: Uint8Array): number {
  let sum = 0;
  let squares = 0;
  for (const v of plane) {
    sum += v;
    squares += v * v;
  }
  const mean = sum / plane.length;
  return Math.sqrt(squares / plane.length - mean * mean);
}

test('synthetic scene: deterministic by seed, size and frame index, in any order', () => {
  const a = new SyntheticScene({ width: 96, height: 54, fps: 30, seed: 7 });
  const b = new SyntheticScene({ width: 96, height: 54, fps: 30, seed: 7 });
  const sequential = [0, 1, 2, 3, 4, 5].map((i) => a.render(i).data);
  for (const i of [5, 2, 0, 4, 1, 3]) assert.ok(same(b.render(i).data, sequential[i]), `frame ${i}`);
  assert.ok(same(a.render(1000).data, b.render(1000).data));
  const into = new Uint8Array(i420Size(96, 54)).fill(99);
  a.renderInto(3, into);
  assert.ok(same(into, sequential[3]), 'renderInto overwrites the whole buffer');
  const other = new SyntheticScene({ width: 96, height: 54, fps: 30, seed: 8 });
  assert.not.ok(same(other.render(0).data, sequential[0]), 'another seed gives another scene');
  for (let i = 1; i < sequential.length; i++) assert.not.ok(same(sequential[i], sequential[i - 1]), `frame ${i} changes`);
});

test('synthetic scene: scenes alike share what they draw from, and one made again after others is the same scene', () => {
  // (A sweep of simulator runs in one process makes the same scene many times; it is built once while it is among the last few.)
  const first = new SyntheticScene({ width: 96, height: 54, fps: 30, seed: 11 }).render(7).data;
  for (let seed = 12; seed < 20; seed++) new SyntheticScene({ width: 96, height: 54, fps: 30, seed }).render(7);
  assert.ok(same(new SyntheticScene({ width: 96, height: 54, fps: 30, seed: 11 }).render(7).data, first), 'rebuilt: the same frames');
  assert.ok(same(new SyntheticScene({ width: 96, height: 54, fps: 30, seed: 11 }).render(7).data, first), 'shared: the same frames');
  assert.not.ok(same(new SyntheticScene({ width: 96, height: 54, fps: 30, seed: 11, noise: 3 }).render(7).data, first), 'another noise, another scene');
});

test('synthetic scene: a fixed fingerprint for seed 1 (the bytes must not drift between versions unnoticed)', async () => {
  const scene = new SyntheticScene({ width: 64, height: 36, fps: 60, seed: 1 });
  const { createHash } = await import('node:crypto');
  const digest = createHash('sha256').update(scene.render(10).data).digest('hex').slice(0, 16);
  assert.is(digest, FINGERPRINT);
});

test('synthetic scene: any size, including odd and tiny ones; frame() is the async face of render()', async () => {
  for (const [width, height] of [[1, 1], [2, 2], [3, 5], [17, 9], [1, 40], [321, 181]]) {
    const scene = new SyntheticScene({ width, height, fps: 25, seed: 'sizes' });
    const picture = await scene.frame(12);
    assert.equal([picture.width, picture.height, picture.data.length], [width, height, i420Size(width, height)]);
    assert.ok(same(picture.data, scene.render(12).data));
  }
});

test('synthetic scene: lumaAt gives the rendered luma at every position, without rendering; data is rendered once, on first use', async () => {
  for (const [width, height, index] of [[1, 1, 0], [3, 5, 7], [17, 9, 100], [96, 54, 3], [321, 181, 4000]]) {
    const scene = new SyntheticScene({ width, height, fps: 30, seed: 'lumaAt' });
    const picture = await scene.frame(index);
    const rendered = scene.render(index).data;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (picture.lumaAt(x, y) !== rendered[y * width + x]) assert.unreachable(`${width}x${height} frame ${index}: (${x}, ${y}) is ${picture.lumaAt(x, y)}, rendered ${rendered[y * width + x]}`);
      }
    }
    assert.throws(() => picture.lumaAt(width, 0), /outside/);
    assert.throws(() => picture.lumaAt(0, -1), /outside/);
  }
  const scene = new SyntheticScene({ width: 64, height: 36, seed: 1 });
  const picture = await scene.frame(10);
  assert.is(picture.data, picture.data, 'rendered once and kept');
  picture.data[0] ^= 0xff;
  assert.is(picture.data[0], scene.render(10).data[0] ^ 0xff, 'the caller may modify its picture');
  assert.is(picture.lumaAt(0, 0), picture.data[0], 'and lumaAt then reads the modified pixels');
  const copy = { ...(await scene.frame(10)) };
  assert.ok(same(copy.data, scene.render(10).data), 'spreading a picture copies its pixels');
});

test('synthetic scene: bad options and indexes are rejected clearly', async () => {
  assert.throws(() => new SyntheticScene({ width: 0 }), /synthetic scene: width must be an integer in 1\.\.16384, got 0/);
  assert.throws(() => new SyntheticScene({ height: 1.5 }), /height must be an integer in 1\.\.16384, got 1\.5/);
  assert.throws(() => new SyntheticScene({ width: 8, height: 8, fps: 0 }), /fps must be a number in \(0, 1000\], got 0/);
  assert.throws(() => new SyntheticScene({ width: 8, height: 8, noise: -1 }), /noise must be a number in 0\.\.40, got -1/);
  assert.throws(() => new SyntheticScene({ width: 8, height: 8, seed: NaN }), /seed must be a string or a finite number/);
  const scene = new SyntheticScene({ width: 8, height: 8 });
  assert.throws(() => scene.render(-1), /frame index must be an integer >= 0, got -1/);
  assert.throws(() => scene.renderInto(0, new Uint8Array(5)), /output buffer must be a Uint8Array of 96 bytes/);
  await scene.close();
  try {
    await scene.frame(0);
    assert.unreachable('a closed source must reject');
  } catch (error) {
    assert.match((error as Error).message, /closed/);
  }
});

test('synthetic scene: not trivially compressible (motion, detail, noise, colour) yet not noise', () => {
  const width = 320;
  const height = 180;
  const scene = new SyntheticScene({ width, height, fps: 30, seed: 3 });
  const still = new SyntheticScene({ width, height, fps: 30, seed: 3, noise: 0 });
  const lumaSize = width * height;
  const frames = Array.from({ length: 31 }, (_, i) => scene.render(i).data);
  const cleanFrames = Array.from({ length: 31 }, (_, i) => still.render(i).data);
  for (let i = 1; i < frames.length; i++) {
    const change = meanAbsDifference(frames[i], frames[i - 1], lumaSize);
    assert.ok(change > 1 && change < 20, `frame ${i}: mean absolute change ${change}`);
    // Without sensor noise something still moves each frame (shapes, pan, light), but most of the picture is predictable.
    const motion = meanAbsDifference(cleanFrames[i], cleanFrames[i - 1], lumaSize);
    assert.ok(motion > 0.05 && motion < 15, `frame ${i}: mean absolute change without noise ${motion}`);
  }
  for (const i of [0, 15, 30]) {
    const luma = frames[i].subarray(0, lumaSize);
    const gradient = meanAbsGradient(luma, width, height);
    assert.ok(gradient > 2 && gradient < 25, `frame ${i}: spatial detail ${gradient}`);
    assert.ok(standardDeviation(luma) > 20, `frame ${i}: luma contrast ${standardDeviation(luma)}`);
    const ratio = deflateSync(luma, { level: 6 }).length / lumaSize;
    assert.ok(ratio > 0.5 && ratio < 0.98, `frame ${i}: deflate ratio ${ratio}`);
    const chromaSize = chromaWidth(width) * chromaHeight(height);
    const u = frames[i].subarray(lumaSize, lumaSize + chromaSize);
    const v = frames[i].subarray(lumaSize + chromaSize);
    assert.ok(standardDeviation(u) > 3 && standardDeviation(v) > 3, 'chroma varies');
  }
  // Over two seconds the shapes travel: large regions differ between the first and the last frame.
  let moved = 0;
  for (let p = 0; p < lumaSize; p++) if (Math.abs(cleanFrames[30][p] - cleanFrames[0][p]) > 24) moved++;
  assert.ok(moved / lumaSize > 0.05, `moved fraction ${moved / lumaSize}`);
});

test('synthetic scene: motion is defined in seconds, so the same instant looks the same at any frame rate', () => {
  const at30 = new SyntheticScene({ width: 64, height: 36, fps: 30, seed: 5 });
  const at60 = new SyntheticScene({ width: 64, height: 36, fps: 60, seed: 5, noise: 0 });
  const at60noisy = new SyntheticScene({ width: 64, height: 36, fps: 60, seed: 5 });
  const clean30 = new SyntheticScene({ width: 64, height: 36, fps: 30, seed: 5, noise: 0 });
  assert.ok(same(clean30.render(15).data, at60.render(30).data));
  assert.not.ok(same(at30.render(15).data, at60noisy.render(30).data), 'the noise differs per frame index');
});

test.run();
