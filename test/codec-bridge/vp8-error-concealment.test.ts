// Error concealment as the Salsify receiver uses it (receiver.ts; alfalfa's
// receiver decoded an incomplete frame with concealment and showed it):
// - Debian's libvpx is built without it (vpx_codec_get_caps() of its VP8
//   decoder lacks VPX_CODEC_CAP_ERROR_CONCEALMENT): the reason the addon links
//   a libvpx built from Debian's source (scripts/libvpx-source.mjs);
// - the addon's libvpx conceals, and a real VP8 stream with a datagram lost
//   decodes to a shown, concealed frame through the receiver (this fails with
//   the stock library, which cannot decode the cut frame);
// - the build falls back to the system library when the source build cannot
//   be had, and a cached build is reused without building.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';
import { libvpxBuild, nativeVp8 } from '../../src/codec-bridge/native.ts';
import { ssim } from '../../src/codec-bridge/ssim.ts';
import type { Picture } from '../../src/codec-bridge/types.ts';
import { createVP8Codec } from '../../src/codec-bridge/vp8-codec.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { Simulator } from '../../src/net/simulator.ts';
import { crc32 } from '../../src/salsify/crc32.ts';
import { encodeFragment, splitFrame } from '../../src/salsify/datagram.ts';
import { SalsifyReceiver, type ShownFrame } from '../../src/salsify/receiver.ts';
import { clipPictures, crop } from './vp8-fixtures.ts';
import { requires } from '../helpers/requires.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The tests of concealment itself: skipped and counted where the addon links a libvpx without it (CI builds one: LIBVPX=source). */
const linked = libvpxBuild();
const concealing = requires([], {
  concealment: linked.errorConcealment ? undefined : `the VP8 addon links the system libvpx, built without error concealment (npm install as root with a deb-src entry and nasm builds one: docs/development.md)`,
});

const PROGRAM = `
#include <stdio.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8dx.h>
int main(void) {
  vpx_codec_caps_t caps = vpx_codec_get_caps(vpx_codec_vp8_dx());
  printf("%s\\n%ld %d\\n", vpx_codec_version_str(), (long)caps, (caps & VPX_CODEC_CAP_ERROR_CONCEALMENT) ? 1 : 0);
  return 0;
}
`;

test('the system libvpx VP8 decoder has no error concealment (vpx_codec_get_caps)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vpx-caps-'));
  try {
    writeFileSync(join(dir, 'caps.c'), PROGRAM);
    const cc = spawnSync('cc', ['-o', join(dir, 'caps'), join(dir, 'caps.c'), '-lvpx'], { encoding: 'utf8', timeout: HANG_BOUND_MS });
    assert.is(cc.status, 0, `cc failed: ${cc.stderr}`);
    const [version, line] = execFileSync(join(dir, 'caps'), { encoding: 'utf8', timeout: HANG_BOUND_MS }).trim().split('\n');
    const [caps, concealment] = line.split(' ').map(Number);
    assert.match(version, /^v?1\.\d+/);
    assert.ok(caps > 0, `caps ${caps}`);
    assert.is(concealment, 0, `the system libvpx ${version} reports error concealment (caps 0x${caps.toString(16)}): the source build may no longer be needed`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

concealing('the addon links a libvpx with error concealment, and says which one', () => {
  const b = libvpxBuild();
  assert.is(b.errorConcealment, nativeVp8().errorConcealment());
  assert.ok(b.errorConcealment, `the addon links ${b.kind === 'system' ? `the system libvpx (${b.detail})` : b.detail}: run npm install with a deb-src entry and nasm (docs/development.md)`);
  assert.is(b.kind, 'source');
});

const W = 320, H = 176, CONN = 5;

concealing('a real VP8 stream with a datagram lost: the cut frame is decoded with concealment and shown once the next frame arrives', async () => {
  const pictures: Picture[] = (await clipPictures(4)).map((p) => crop(p, 480, 160, W, H));
  const codec = createVP8Codec();
  try {
    const frames = [];
    let s = codec.initialState(W, H);
    for (let i = 0; i < 4; i++) {
      const r = await codec.encode(s, pictures[i], i === 0 ? 20 : 4);
      frames.push({ r, from: s.id });
      s = r.state;
    }
    const sim = new Simulator();
    const net = createSimNetwork(sim, { uplink: [{ kind: 'delay', ms: 1 }], downlink: [{ kind: 'delay', ms: 1 }], seed: 1 });
    const shown: ShownFrame[] = [];
    const receiver = new SalsifyReceiver({ ctx: net.inside, codec, connectionId: CONN, onShown: (f) => shown.push(f) });
    const PAYLOAD = 400;
    frames.forEach(({ r, from }, n) => {
      const pieces = splitFrame(r.frame, PAYLOAD);
      if (n === 2) assert.ok(pieces.length >= 3, `frame 2 is ${r.frame.length} bytes: too few datagrams`);
      pieces.forEach((payload, i) => {
        if (n === 2 && i === pieces.length - 1) return; // lost
        const d = encodeFragment({
          connectionId: CONN, frameNumber: n, fragmentIndex: i, fragmentCount: pieces.length, width: W, height: H,
          sourceStateId: from, targetStateId: r.state.id, timeSincePreviousFrameUs: 0, frameLength: r.frame.length,
          frameChecksum: crc32(r.frame), payload,
        });
        sim.at(n * 40 + i, () => net.outside.send(d));
      });
    });
    await sim.run();
    assert.is(receiver.failure, undefined);
    assert.is(receiver.counters.concealment, 1);
    assert.equal(shown.map((f) => [f.frameNumber, f.concealed]), [[0, false], [1, false], [2, true], [3, true]]);
    assert.is(receiver.counters.framesConcealed, 1);
    const intact = (await codec.decode(frames[1].r.state, frames[2].r.frame)).picture;
    const exact = ssim(pictures[2], intact).y;
    const concealed = ssim(pictures[2], shown[2].picture).y;
    assert.ok(concealed < exact, `concealed ${concealed} vs intact ${exact}`);
    assert.ok(concealed > 0.5, `the concealed picture is still the scene (SSIM ${concealed})`);
  } finally {
    await codec.close();
  }
});

concealing('a frame cut inside its first partition (its modes) is concealed, also as the first inter frame a fresh decoder sees', async () => {
  const pictures: Picture[] = (await clipPictures(2)).map((p) => crop(p, 480, 160, W, H));
  const encoder = createVP8Codec();
  const decoder = createVP8Codec();
  try {
    const key = await encoder.encode(encoder.initialState(W, H), pictures[0], 20);
    const inter = await encoder.encode(key.state, pictures[1], 0);
    const header = nativeVp8().parseFrameHeader(inter.frame);
    assert.ok(header.firstPartitionSize > 60, `first partition ${header.firstPartitionSize} bytes`);
    const cut = inter.frame.subarray(0, 3 + Math.floor(header.firstPartitionSize / 2));
    const shownKey = await decoder.decode(decoder.initialState(W, H), key.frame);
    const c = await decoder.conceal!(shownKey.state, cut, inter.frame.length);
    assert.ok(c.concealed);
    const exact = ssim(pictures[1], (await decoder.decode(key.state, inter.frame)).picture).y;
    const concealed = ssim(pictures[1], c.picture).y;
    assert.ok(concealed < exact && concealed > 0.5, `concealed ${concealed}, intact ${exact}`);
    // the decoder goes on decoding exactly afterwards
    assert.is((await decoder.decode(key.state, inter.frame)).state.id, inter.state.id);
  } finally {
    await encoder.close();
    await decoder.close();
  }
});

test('the build falls back to the system libvpx when the source build cannot be had, and reuses a cached build', async () => {
  // @ts-expect-error: a plain .mjs script without types
  const { prepareLibvpx, CONFIGURE_FLAGS } = await import('../../scripts/libvpx-source.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'libvpx-cache-'));
  const quiet = () => {};
  try {
    assert.equal(prepareLibvpx(ROOT, { env: { LIBVPX: 'system' }, say: quiet }), { kind: 'system', reason: 'LIBVPX=system' });
    const noTools = { PATH: join(dir, 'empty'), LIBVPX_CACHE_DIR: dir };
    mkdirSync(noTools.PATH);
    const fallback = prepareLibvpx(ROOT, { env: noTools, say: quiet });
    assert.is(fallback.kind, 'system');
    assert.match(fallback.reason, /nasm/);
    let threw = '';
    try {
      prepareLibvpx(ROOT, { env: { ...noTools, LIBVPX: 'source' }, say: quiet });
    } catch (error) {
      threw = (error as Error).message;
    }
    assert.match(threw, /nasm/, 'LIBVPX=source makes the failure an error');
    let bad = '';
    try {
      prepareLibvpx(ROOT, { env: { LIBVPX: 'static' }, say: quiet });
    } catch (error) {
      bad = (error as Error).message;
    }
    assert.match(bad, /LIBVPX must be auto, source or system, got "static"/);
    // A cache holding the tarballs and a finished build: reused as it is.
    const src = join(dir, 'src');
    mkdirSync(src);
    writeFileSync(join(src, 'libvpx_1.12.0.orig.tar.gz'), 'not really a tarball');
    writeFileSync(join(src, 'libvpx_1.12.0-1.debian.tar.xz'), 'nor this');
    const first = prepareLibvpx(ROOT, { env: { PATH: process.env.PATH, LIBVPX_CACHE_DIR: dir, LIBVPX: 'source' }, say: quiet, dryRun: true });
    assert.is(first.kind, 'planned');
    const build = join(dir, `build-${first.key}`);
    mkdirSync(join(build, 'prefix', 'lib'), { recursive: true });
    writeFileSync(join(build, 'prefix', 'lib', 'libvpx.a'), '');
    writeFileSync(join(build, 'done.json'), JSON.stringify({ seconds: 61, patches: 10 }));
    const cached = prepareLibvpx(ROOT, { env: { PATH: process.env.PATH, LIBVPX_CACHE_DIR: dir }, say: quiet });
    assert.is(cached.kind, 'source');
    assert.ok(cached.cached);
    assert.is(cached.prefix, join(build, 'prefix'));
    assert.is(cached.buildSeconds, 61);
    assert.equal(cached.configureFlags, CONFIGURE_FLAGS);
    assert.ok(CONFIGURE_FLAGS.includes('--enable-error-concealment'));
    // the key follows the tarball's contents
    writeFileSync(join(src, 'libvpx_1.12.0.orig.tar.gz'), 'another tarball');
    assert.is.not(prepareLibvpx(ROOT, { env: { PATH: process.env.PATH, LIBVPX_CACHE_DIR: dir }, say: quiet, dryRun: true }).key, first.key);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(existsSync(join(ROOT, 'native-vp8', 'build', 'libvpx-build.json')), 'the install step records its choice');
  assert.ok(['source', 'system'].includes(JSON.parse(readFileSync(join(ROOT, 'native-vp8', 'build', 'libvpx-build.json'), 'utf8')).kind));
});

test.run();
