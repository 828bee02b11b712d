// VP9 and AV1 quality: the received frames written to IVF and decoded by
// ffmpeg with the decoders Chromium uses (libvpx for VP9, dav1d for AV1),
// each picture at its own size (a stream that changes resolution half-way, as
// Chromium's does), matched to its frame by timestamp, its barcode read and
// its SSIM computed. The decoding is bit-exact: another, independent decoder
// of the same codec (ffmpeg's own vp9, libaom) gives the same pictures.
// Scalable streams: each RTP timestamp's layers in layer order.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseIvfHeader, IVF_HEADER_SIZE, IVF_FRAME_HEADER_SIZE } from '../../src/codec-bridge/video/ivf.ts';
import { Y4mFile } from '../../src/codec-bridge/video/y4m-file.ts';
import { prepareClip } from '../../src/webrtc/clip.ts';
import { ffmpegDecode, parseShowinfoLine } from '../../src/webrtc/ffmpeg-decode.ts';
import { lumaHash } from '../../src/webrtc/luma-hash.ts';
import { requires } from '../helpers/requires.ts';
import { layeredDecodeOrder, measureQuality, parseEncodedFrames, type EncodedFrame } from '../../src/webrtc/quality.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const dir = mkdtempSync(join(tmpdir(), 'ffmpeg-decode-test-'));
const W = 640;
const H = 360;
const N = 16;
let clipPath = '';

/** The frames of an IVF file. */
function ivfFrames(path: string): { data: Uint8Array; timestamp: number }[] {
  const bytes = new Uint8Array(readFileSync(path));
  parseIvfHeader(bytes, path, { fourcc: null });
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const out: { data: Uint8Array; timestamp: number }[] = [];
  for (let o = IVF_HEADER_SIZE; o < bytes.length; ) {
    const size = view.getUint32(o, true);
    out.push({ data: bytes.subarray(o + IVF_FRAME_HEADER_SIZE, o + IVF_FRAME_HEADER_SIZE + size), timestamp: Number(view.getBigUint64(o + 4, true)) });
    o += IVF_FRAME_HEADER_SIZE + size;
  }
  return out;
}

/** Source frames [from, from + count) of the clip encoded by ffmpeg at `size`: the frames as the receiver would have got them. */
function encode(encoder: string[], from: number, count: number, size: string, name: string): Uint8Array[] {
  const out = join(dir, name);
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', clipPath, '-vf', `trim=start_frame=${from}:end_frame=${from + count},setpts=PTS-STARTPTS,scale=${size}`, ...encoder, '-y', out], { encoding: 'utf8', timeout: HANG_BOUND_MS });
  assert.is(r.status, 0, r.stderr);
  return ivfFrames(out).map((f) => f.data);
}

/** Frames as the receiver page posts them: source frame k at RTP timestamp 3000 k. */
function received(datas: Uint8Array[], key: (k: number) => boolean): EncodedFrame[] {
  return datas.map((data, k) => ({ rtp: 3000 * k, rawRtp: 3000 * k, key: key(k), spatialIndex: 0, receivedMs: 33 * k, data }));
}

async function check(codec: 'vp9' | 'av1', encoder: string[], otherDecoder: string) {
  const half = N / 2;
  const frames = received([...encode(encoder, 0, half, `${W}:${H}`, `${codec}-a.ivf`), ...encode(encoder, half, half, `${W / 2}:${H / 2}`, `${codec}-b.ivf`)], (k) => k % half === 0);
  const clip = await Y4mFile.open(clipPath);
  const ivfPath = join(dir, `${codec}.ivf`);
  const hashes = new Set(Array.from({ length: N }, (_, k) => k));
  try {
    const q = await measureQuality({ received: frames, ivfPath, displayed: new Set(frames.map((f) => f.rawRtp)), sourceFrame: (k) => clip.read(k), sourceWidth: W, sourceHeight: H, codec, hashFileFrames: hashes });
    assert.is(q.undecodable, 0, q.firstError);
    assert.is(q.frames.length, N);
    assert.equal(q.frames.map((f) => f.fileFrame), Array.from({ length: N }, (_, k) => k), 'every barcode read, each picture matched to its frame');
    assert.equal(q.frames.map((f) => f.width), [...Array(half).fill(W), ...Array(half).fill(W / 2)], 'each picture at its own size');
    for (const f of q.frames) assert.ok(f.ssim !== undefined && f.ssim > 0.8 && f.ssim <= 1, `frame ${f.fileFrame}: SSIM ${f.ssim}`);
    assert.is(parseIvfHeader(new Uint8Array(readFileSync(ivfPath)), ivfPath, { fourcc: null }).fourcc, codec === 'vp9' ? 'VP90' : 'AV01');
    // Bit-exact: an independent decoder of the same codec gives the same luma, picture by picture.
    const other: number[] = [];
    for await (const d of ffmpegDecode(ivfPath, codec, { decoder: otherDecoder })) other.push(lumaHash(d.picture.data, d.picture.width, d.picture.height, d.picture.width));
    assert.equal(other, q.frames.map((f) => f.lumaHash));
  } finally {
    await clip.close();
  }
}

test.before(async () => {
  clipPath = join(dir, 'clip.y4m');
  await prepareClip(clipPath, { video: 'synthetic', width: W, height: H, fps: 30, syntheticFrames: N });
});

requires(['ffmpeg'])('VP9 (libvpx, as Chromium): every frame decoded, matched, measured; identical to ffmpeg\'s own vp9 decoder', async () => {
  await check('vp9', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1M', '-f', 'ivf'], 'vp9');
});

requires(['ffmpeg'])('AV1 (dav1d, as Chromium): every frame decoded, matched, measured; identical to libaom', async () => {
  await check('av1', ['-c:v', 'libaom-av1', '-usage', 'realtime', '-cpu-used', '8', '-b:v', '1M', '-f', 'ivf'], 'libaom-av1');
});

test('a scalable stream: per RTP timestamp each layer once, in layer order, from the first key frame', () => {
  const f = (rtp: number, spatialIndex: number, key = false, tag = 0): EncodedFrame => ({ rtp, rawRtp: rtp, key, spatialIndex, receivedMs: tag, data: new Uint8Array([rtp, spatialIndex, tag]) });
  const order = layeredDecodeOrder([f(0, 1), f(3000, 1), f(3000, 0, true), f(6000, 1), f(6000, 0), f(6000, 1, false, 9), f(9000, 0)]);
  assert.equal(order.map((x) => [x.rtp, x.spatialIndex, x.receivedMs]), [[3000, 0, 0], [3000, 1, 0], [6000, 0, 0], [6000, 1, 0], [9000, 0, 0]]);
  // The page's flags byte: bit 0 key, bits 1-3 the spatial layer; anything above is refused.
  const posted = (flags: number) => {
    const b = new Uint8Array(18);
    const v = new DataView(b.buffer);
    v.setUint32(0, 90, true);
    v.setUint8(4, flags);
    v.setUint32(13, 1, true);
    return b;
  };
  assert.equal(parseEncodedFrames(posted(5), 'p').map((x) => [x.key, x.spatialIndex]), [[true, 2]]);
  assert.equal(parseEncodedFrames(posted(1), 'p').map((x) => [x.key, x.spatialIndex]), [[true, 0]]);
  assert.throws(() => parseEncodedFrames(posted(16), 'p.frames'), /p\.frames: frame 0 at byte 0: flags 16, expected 0 to 15/);
});

test("ffmpeg's lines; a missing ffmpeg is one clear error", async () => {
  assert.equal(parseShowinfoLine('[Parsed_showinfo_1 @ 0x55cc96877dc0] n:   1 pts:   3000 pts_time:0.0333 pos: 6937 fmt:yuv420p sar:0/1 s:320x180 i:P iskey:1 type:?'), { pts: 3000, format: 'yuv420p', width: 320, height: 180 });
  assert.is(parseShowinfoLine('frame=    1 fps=0.0 q=-0.0 size=      84kB'), null);
  const gen = ffmpegDecode(join(dir, 'vp9.ivf'), 'vp9', { ffmpeg: join(dir, 'no-ffmpeg') });
  try {
    await gen.next();
    assert.unreachable('no ffmpeg');
  } catch (error) {
    assert.match((error as Error).message, /vp9\.ivf: cannot decode vp9 with ffmpeg: .*no-ffmpeg not found \(apt-get install -y ffmpeg\)/);
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
