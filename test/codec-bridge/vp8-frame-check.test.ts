// An IVF file whose frames are not VP8 is refused when it is opened, before
// a run starts, even where the run would never decode that frame (the model
// codec decodes only the frames its duration reaches): the VP8 frame tag of
// every frame is checked (RFC 6386 section 9.1).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkVp8IvfFile, vp8FrameProblem } from '../../src/codec-bridge/video/vp8-frame-check.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';
import { rejects } from '../helpers/rejects.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CLIP = join(root, '..', 'shared', 'video', 'FourPeople_1280x720_60.ivf');
const dir = mkdtempSync(join(tmpdir(), 'vp8-frame-check-'));

/** The clip's header and first `count` frames (header and frame, as stored), then `extra` as frame `count`. */
function clipWith(count: number, extra: Buffer): Buffer {
  const clip = readFileSync(CLIP);
  let end = 32;
  for (let i = 0; i < count; i++) end += 12 + clip.readUInt32LE(end);
  const head = Buffer.alloc(12);
  head.writeUInt32LE(extra.length, 0);
  head.writeBigUInt64LE(BigInt(count), 4);
  return Buffer.concat([clip.subarray(0, end), head, extra]);
}

/** A key frame's first bytes with the start code wrong: the tag says key frame, first partition 1 byte. */
const NOT_VP8 = Buffer.from([0x20, 0x00, 0x00, 0xab, 0xab, 0xab, 0x00, 0x05, 0xd0, 0x02, 0x00, 0x00]);

test('frame tags: a key frame with its start code and size passes; an inter frame first, a wrong start code or a partition past the end do not', () => {
  const clip = readFileSync(CLIP);
  const first = clip.subarray(44, 44 + clip.readUInt32LE(32));
  assert.is(vp8FrameProblem(first, 0), undefined);
  assert.match(vp8FrameProblem(Buffer.from([0x01, 0x00, 0x00, 0, 0]), 0)!, /not a key frame/);
  assert.is(vp8FrameProblem(Buffer.from([0x21, 0x00, 0x00, 0]), 5), undefined, 'an inter frame with a 1-byte first partition');
  assert.match(vp8FrameProblem(NOT_VP8, 3)!, /start code is ab ab ab, expected 9d 01 2a/);
  assert.match(vp8FrameProblem(Buffer.from([0xe1, 0xff, 0x00, 0]), 5)!, /first partition is 2047 bytes, the frame has 1/);
  assert.is(vp8FrameProblem(Buffer.alloc(0), 7), undefined, 'an empty frame after the first (a dropped frame)');
});

test('the whole clip passes; a clip whose frame 30 is not VP8 is refused naming the file and the frame', async () => {
  await checkVp8IvfFile(CLIP);
  const bad = join(dir, 'frame30.ivf');
  writeFileSync(bad, clipWith(30, NOT_VP8));
  await rejects(checkVp8IvfFile(bad), new RegExp(`^${bad.replace(/[.]/g, '\\.')}: frame 30 is not VP8: its key frame start code is ab ab ab`));
});

test('salsify send --codec model on that clip for 0.1 s (6 frames): one line naming file and frame, exit 2, before the run starts', () => {
  const bad = join(dir, 'frame30.ivf');
  const r = spawnSync(process.execPath, [join(root, 'bin', 'salsify.js'), 'send', '--to', '127.0.0.1:9', '--codec', 'model', '--video', bad, '--duration', '0.1', '--drain', '0', '--out', join(dir, 'out')], {
    cwd: root, encoding: 'utf8', timeout: HANG_BOUND_MS,
  });
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /^salsify send: --video: [^\n]*frame30\.ivf: frame 30 is not VP8: [^\n]*\n$/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
