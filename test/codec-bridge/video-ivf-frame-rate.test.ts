// The frame rate of an IVF file comes from its frame timestamps, not from the header's time base
// (ivf-frame-rate.ts), as ffprobe finds it; an fps option overrides it (and a Y4M file's F field).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createStreamDecoder } from '../../src/codec-bridge/stream-decoder.ts';
import { i420Size } from '../../src/codec-bridge/video/i420.ts';
import { IvfClip } from '../../src/codec-bridge/video/ivf-clip.ts';
import { ivfFrameRate } from '../../src/codec-bridge/video/ivf-frame-rate.ts';
import { createIvfWriter } from '../../src/codec-bridge/video/ivf.ts';
import { openVideoSource } from '../../src/codec-bridge/video/open-video-source.ts';
import { formatY4mHeader } from '../../src/codec-bridge/video/y4m.ts';
import { rejects } from '../helpers/rejects.ts';
import { onPath, requires } from '../helpers/requires.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const dir = mkdtempSync(join(tmpdir(), 'video-ivf-frame-rate-test-'));
const MS = { rate: 1000, scale: 1 };
const stamps = (n: number, at: (i: number) => number) => Array.from({ length: n }, (_, i) => at(i));

test('IVF frame rate: millisecond timestamps (time base 1/1000) give the frame rate, not 1000', () => {
  assert.equal(ivfFrameRate(stamps(25, (i) => i * 40), MS, 'a.ivf'), { fps: 25, basis: 'constant' });
  // 30 fps rounded to the millisecond (0, 33, 67, 100, ...), as ffmpeg writes them, and truncated.
  assert.equal(ivfFrameRate(stamps(30, (i) => Math.round((i * 1000) / 30)), MS, 'a.ivf'), { fps: 30, basis: 'constant' });
  assert.equal(ivfFrameRate(stamps(30, (i) => Math.floor((i * 1000) / 30)), MS, 'a.ivf'), { fps: 30, basis: 'constant' });
  // NTSC 29.97 (30000/1001) over 10 s, told apart from 30.
  assert.equal(ivfFrameRate(stamps(300, (i) => Math.round((i * 1001) / 30)), MS, 'a.ivf'), { fps: 30000 / 1001, basis: 'constant' });
  // Two frames are enough for a constant rate.
  assert.equal(ivfFrameRate([500, 540], MS, 'a.ivf'), { fps: 25, basis: 'constant' });
  // A rate not in the common list: the 1/1000 clock itself when frames are a millisecond apart.
  assert.equal(ivfFrameRate(stamps(10, (i) => i), MS, 'a.ivf'), { fps: 1000, basis: 'constant' });
});

test('IVF frame rate: a time base that is one frame (timestamps 0, 1, 2, ...) gives that rate', () => {
  assert.equal(ivfFrameRate(stamps(5, (i) => i), { rate: 25, scale: 1 }, 'a.ivf'), { fps: 25, basis: 'constant' });
  assert.equal(ivfFrameRate(stamps(5, (i) => i), { rate: 30000, scale: 1001 }, 'a.ivf'), { fps: 30000 / 1001, basis: 'constant' });
  assert.equal(ivfFrameRate(stamps(5, (i) => 7 + i), { rate: 25, scale: 2 }, 'a.ivf'), { fps: 12.5, basis: 'constant' });
});

test('IVF frame rate: a variable rate or missing frames give the average rate over the clip', () => {
  // 90 kHz clock, frames 3600 or 1800 ticks apart (ffprobe's r_frame_rate would say 50): 5 frames in 0.16 s.
  const vfr = [0, 3600, 5400, 9000, 10800];
  assert.equal(ivfFrameRate(vfr, { rate: 90000, scale: 1 }, 'a.ivf'), { fps: 4 / (10800 / 90000), basis: 'average' });
  // 25 fps with frame 3 missing: 5 frames over 0.2 s.
  assert.equal(ivfFrameRate([0, 40, 80, 160, 200], MS, 'a.ivf'), { fps: 20, basis: 'average' });
});

test('IVF frame rate: timestamps that do not increase, or one frame on a clock time base, are refused in one line', () => {
  assert.throws(() => ivfFrameRate([0, 40, 40], MS, 'clip.ivf'), (e: Error) =>
    e.message === "clip.ivf: frame 2: IVF frame field timestamp is 40, not after frame 1's 40, so the frame rate cannot be derived from the timestamps; give the frame rate instead (the fps option)",
  );
  assert.throws(() => ivfFrameRate([0], MS, 'still.ivf'), /^still\.ivf: the frame rate cannot be derived from a single frame, and the IVF header's time base 1\/1000 s \(1000 ticks\/s\) is no frame rate; give the frame rate instead \(the fps option\)$/);
  assert.equal(ivfFrameRate([0], { rate: 30, scale: 1 }, 'still.ivf'), { fps: 30, basis: 'header' });
});

function writeY4m(path: string, fps: number): void {
  const frame = Buffer.concat([Buffer.from('FRAME\n'), Buffer.alloc(i420Size(4, 2), 128)]);
  writeFileSync(path, Buffer.concat([Buffer.from(formatY4mHeader({ width: 4, height: 2, fps })), frame, frame]));
}

test('the fps option overrides an IVF file\'s derived rate and a Y4M file\'s F field; a bad one is refused naming the file', async () => {
  const ivf = join(dir, 'ms.ivf');
  const writer = createIvfWriter(ivf, { width: 4, height: 2, fps: 1000, fourcc: 'RAWF' });
  for (let i = 0; i < 3; i++) await writer.write({ data: new Uint8Array(i420Size(4, 2)), timestamp: i * 40 });
  await writer.close();
  const decode = async () => ({ width: 4, height: 2, data: new Uint8Array(i420Size(4, 2)) });
  const derived = await openVideoSource(ivf, { decode, fourcc: 'RAWF' });
  assert.is(derived.fps, 25);
  await derived.close();
  const given = await openVideoSource(ivf, { decode, fourcc: 'RAWF', fps: 12 });
  assert.is(given.fps, 12);
  await given.close();
  const y4m = join(dir, 'clip.y4m');
  writeY4m(y4m, 50);
  const asFiled = await openVideoSource(y4m);
  assert.is(asFiled.fps, 50);
  await asFiled.close();
  const overridden = await openVideoSource(y4m, { fps: 24 });
  assert.is(overridden.fps, 24);
  await overridden.close();
  for (const fps of [0, -1, Number.NaN, 1e9]) {
    await rejects(openVideoSource(y4m, { fps }), /clip\.y4m: fps must be a number of frames per second in \(0, 1000\]/);
    await rejects(IvfClip.open(ivf, decode, { fourcc: 'RAWF', fps }), /ms\.ivf: fps must be a number of frames per second in \(0, 1000\]/);
  }
});

const withFfmpeg = requires(['ffmpeg']);
const haveFfprobe = onPath('ffprobe');

function ffmpeg(...args: string[]): void {
  const r = spawnSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...args], { encoding: 'utf8', timeout: HANG_BOUND_MS });
  if (r.status !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${r.stderr || r.error?.message}`);
}

/** ffprobe's r_frame_rate of the file, as a number. */
function ffprobeRate(path: string): number {
  const r = spawnSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=r_frame_rate', '-of', 'csv=p=0', path], { encoding: 'utf8', timeout: HANG_BOUND_MS });
  const [num, den] = r.stdout.trim().split('/').map(Number);
  return num / den;
}

withFfmpeg('IVF files written by ffmpeg at 25 and 30 fps, with time base 1/fps or 1/1000 (from WebM), are read at 25 and 30 fps', async () => {
  for (const rate of [25, 30]) {
    const direct = join(dir, `direct-${rate}.ivf`);
    const webm = join(dir, `clip-${rate}.webm`);
    const remuxed = join(dir, `remuxed-${rate}.ivf`);
    ffmpeg('-f', 'lavfi', '-i', `testsrc=size=160x120:rate=${rate}`, '-t', '1', '-c:v', 'libvpx', direct);
    ffmpeg('-f', 'lavfi', '-i', `testsrc=size=160x120:rate=${rate}`, '-t', '1', '-c:v', 'libvpx', webm);
    ffmpeg('-i', webm, '-c', 'copy', remuxed);
    for (const [path, timeBase] of [[direct, `1/${rate}`], [remuxed, '1/1000']]) {
      const decoder = createStreamDecoder();
      const source = await openVideoSource(path, { decode: (frame) => decoder.decode(frame) });
      try {
        assert.is(source.fps, rate, `${path} (time base ${timeBase})`);
        assert.is(source.frameCount, rate);
        if (haveFfprobe) assert.is(ffprobeRate(path), source.fps, `ffprobe agrees on ${path}`);
        const picture = await source.frame(rate - 1);
        assert.equal([picture.width, picture.height], [160, 120]);
      } finally {
        await source.close();
      }
    }
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
