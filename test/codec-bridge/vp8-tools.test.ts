// Agreement with the reference tools: a chain of our frames written as IVF
// decodes identically with vpxdec and ffmpeg, and our SSIM matches
// `ffmpeg -lavfi ssim` on the test clip within 0.001.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createVP8Codec, ssim } from '../../src/codec-bridge/index.ts';
import type { Picture } from '../../src/codec-bridge/types.ts';
import { clipPictures, crop, ivfFile } from './vp8-fixtures.ts';
import { requires } from '../helpers/requires.ts';

const dir = mkdtempSync(join(tmpdir(), 'vp8-tools-'));

function concat(pictures: Picture[]): Buffer {
  return Buffer.concat(pictures.map((p) => Buffer.from(p.data.buffer, p.data.byteOffset, p.data.length)));
}

requires(['vpxdec', 'ffmpeg'])('a linear chain decodes identically with vpxdec, ffmpeg and our decoder', async () => {
  const source = await clipPictures(8);
  const width = 402;
  const height = 298;
  const pictures = source.map((p) => crop(p, 300, 150, width, height));
  const codec = createVP8Codec({ encoders: 1 });
  let state = codec.initialState(width, height);
  let received = codec.initialState(width, height);
  const frames: Uint8Array[] = [];
  const decoded: Picture[] = [];
  for (const [i, p] of pictures.entries()) {
    const e = await codec.encode(state, p, [10, 40, 80, 120][i % 4]);
    const d = await codec.decode(received, e.frame);
    frames.push(e.frame);
    decoded.push(d.picture);
    state = e.state;
    received = d.state;
  }
  await codec.close();
  const ivf = join(dir, 'chain.ivf');
  writeFileSync(ivf, ivfFile(width, height, frames));
  const ours = concat(decoded);
  execFileSync('vpxdec', ['--i420', '-o', join(dir, 'vpxdec.yuv'), ivf], { stdio: 'pipe' });
  assert.ok(readFileSync(join(dir, 'vpxdec.yuv')).equals(ours), 'vpxdec differs');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', ivf, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', join(dir, 'ffmpeg.yuv')], { stdio: 'pipe' });
  assert.ok(readFileSync(join(dir, 'ffmpeg.yuv')).equals(ours), 'ffmpeg differs');
});

requires(['ffmpeg'])('SSIM agrees with ffmpeg -lavfi ssim within 0.001 on the test clip', async () => {
  const source = await clipPictures(4);
  const codec = createVP8Codec({ encoders: 1 });
  const degraded: Picture[] = [];
  let state = codec.initialState(1280, 720);
  for (const [i, p] of source.entries()) {
    const e = await codec.encode(state, p, [100, 60, 120, 30][i]);
    degraded.push((await codec.decode(state, e.frame)).picture);
    state = e.state;
  }
  await codec.close();
  writeFileSync(join(dir, 'a.yuv'), concat(source));
  writeFileSync(join(dir, 'b.yuv'), concat(degraded));
  const raw = ['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', '1280x720'];
  // ffmpeg prints its SSIM summary on stderr.
  const run = spawnSync('ffmpeg', ['-hide_banner', '-nostats', ...raw, '-i', join(dir, 'b.yuv'), ...raw, '-i', join(dir, 'a.yuv'), '-lavfi', 'ssim', '-f', 'null', '-'], {
    encoding: 'utf8',
  });
  assert.is(run.status, 0, run.stderr);
  const log = run.stderr;
  const m = /SSIM Y:([\d.]+) .*U:([\d.]+) .*V:([\d.]+) .*All:([\d.]+)/.exec(log);
  assert.ok(m, `no SSIM summary in ffmpeg's output: ${log.slice(-300)}`);
  const ours = source.map((p, i) => ssim(p, degraded[i]));
  const mean = (f: (r: (typeof ours)[number]) => number) => ours.reduce((s, r) => s + f(r), 0) / ours.length;
  const [y, u, v, all] = m!.slice(1).map(Number);
  assert.ok(Math.abs(mean((r) => r.y) - y) < 0.001, `Y ours ${mean((r) => r.y)} ffmpeg ${y}`);
  assert.ok(Math.abs(mean((r) => r.u) - u) < 0.001, `U ours ${mean((r) => r.u)} ffmpeg ${u}`);
  assert.ok(Math.abs(mean((r) => r.v) - v) < 0.001, `V ours ${mean((r) => r.v)} ffmpeg ${v}`);
  assert.ok(Math.abs(mean((r) => r.all) - all) < 0.001, `All ours ${mean((r) => r.all)} ffmpeg ${all}`);
  assert.ok(y < 0.99, 'the test pictures should differ noticeably');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
