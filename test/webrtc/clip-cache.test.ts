// The camera clip cache: a clip is prepared once per source content, size, rate and length, reused
// byte for byte, written whole or not at all, and the least recently used go beyond the size limit.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cachedClip, clipKey, defaultClipCacheDir, evictClips } from '../../src/webrtc/clip-cache.ts';
import { prepareClip } from '../../src/webrtc/clip.ts';

const dir = mkdtempSync(join(tmpdir(), 'clip-cache-test-'));
const cache = join(dir, 'cache');
const small = { video: 'synthetic', width: 96, height: 64, fps: 10, syntheticFrames: 12 };
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('the first call prepares the clip, the second reuses the same bytes; both equal a clip prepared directly', async () => {
  const first = await cachedClip(cache, small);
  assert.is(first.reused, false);
  const second = await cachedClip(cache, small);
  assert.is(second.reused, true);
  assert.is(second.path, first.path);
  assert.is(second.frameCount, 12);
  const direct = await prepareClip(join(dir, 'direct.y4m'), small);
  assert.ok(readFileSync(first.path).equals(readFileSync(direct.path)));
  assert.equal(readdirSync(cache).filter((n) => n.endsWith('.tmp')), [], 'no temporary file left');
});

test('the key follows the content of a source file, the size, the rate and the length, not the file name', async () => {
  const a = join(dir, 'a.y4m');
  const b = join(dir, 'b.y4m');
  await prepareClip(a, { ...small, syntheticFrames: 3 });
  writeFileSync(b, readFileSync(a));
  const options = { video: a, width: 80, height: 48, fps: 10 };
  assert.is(await clipKey(options), await clipKey({ ...options, video: b }));
  const bytes = readFileSync(b);
  bytes[bytes.length - 1] ^= 0xff;
  writeFileSync(b, bytes);
  assert.is.not(await clipKey(options), await clipKey({ ...options, video: b }));
  const keys = new Set([await clipKey(small), await clipKey({ ...small, fps: 11 }), await clipKey({ ...small, width: 98 }), await clipKey({ ...small, syntheticFrames: 13 })]);
  assert.is(keys.size, 4);
});

test('a clip whose file is not whole (size differs from the record) is prepared again', async () => {
  const clip = await cachedClip(cache, small);
  writeFileSync(clip.path, 'truncated');
  const again = await cachedClip(cache, small);
  assert.is(again.reused, false);
  assert.ok(readFileSync(again.path).length > 1000);
});

test('eviction removes the least recently used clips beyond the limit, never the one in use, and dead writers\' leftovers', async () => {
  const older = await cachedClip(cache, { ...small, fps: 5 });
  const past = new Date(Date.now() - 3600_000);
  utimesSync(older.path, past, past);
  const current = await cachedClip(cache, small);
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  writeFileSync(join(cache, `.abc.${dead}.tmp`), 'left by a killed writer');
  evictClips(cache, readFileSync(current.path).length, current.path);
  assert.ok(existsSync(current.path));
  assert.not.ok(existsSync(older.path));
  assert.not.ok(existsSync(older.path.replace(/\.y4m$/, '.json')));
  assert.not.ok(existsSync(join(cache, `.abc.${dead}.tmp`)));
});

test('the default cache is under XDG_CACHE_HOME, else ~/.cache', () => {
  assert.is(defaultClipCacheDir({ XDG_CACHE_HOME: '/x' }), '/x/lowlat-video-toolkit/webrtc-clips');
  assert.match(defaultClipCacheDir({}), /\/\.cache\/lowlat-video-toolkit\/webrtc-clips$/);
});

test.run();
