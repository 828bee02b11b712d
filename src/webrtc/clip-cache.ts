// Prepared camera clips (clip.ts), kept between calls: preparing one decodes,
// resizes and writes hundreds of 720p frames (about 50 s on a loaded 2-core
// machine, a 207 MB file), the same for every call of the same source, size,
// rate and length. A clip is named by a hash of what determines its bytes: the
// source's content (its SHA-256, not its name or time), the size, the rate, the
// synthetic length and the prepared format's version. It is written under a
// temporary name and renamed, so concurrent calls never see half a file, and
// the least recently used clips are removed beyond a size limit.
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { prepareClip, type ClipOptions, type PreparedClip } from './clip.ts';
import { processAlive } from './stale-temp.ts';

/** Bumped whenever prepareClip's output for the same inputs changes (barcode, sampling, format). */
export const CLIP_FORMAT_VERSION = 1;
/** Clips kept beyond the one in use, by total size (a 60 s 720p clip is about 200 MB). */
export const DEFAULT_CLIP_CACHE_BYTES = 2 * 1024 ** 3;

/** $XDG_CACHE_HOME/lowlat-video-toolkit/webrtc-clips, or ~/.cache/... */
export function defaultClipCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lowlat-video-toolkit', 'webrtc-clips');
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The cache key of a clip: what its bytes depend on, hashed. */
export async function clipKey(options: ClipOptions): Promise<string> {
  const source = options.video.startsWith('synthetic') ? options.video : await fileSha256(options.video);
  const parts = [CLIP_FORMAT_VERSION, source, options.width, options.height, options.fps, options.syntheticFrames ?? 'default'];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

export interface CachedClip extends PreparedClip {
  /** Whether the clip was already in the cache. */
  readonly reused: boolean;
}

/** The prepared clip for `options`, from `dir` when it is there, otherwise prepared into it. */
export async function cachedClip(dir: string, options: ClipOptions, maxBytes = DEFAULT_CLIP_CACHE_BYTES): Promise<CachedClip> {
  mkdirSync(dir, { recursive: true });
  const key = await clipKey(options);
  const path = join(dir, `${key}.y4m`);
  const meta = join(dir, `${key}.json`);
  const known = readMeta(meta, path);
  if (known !== undefined) {
    const now = new Date();
    utimesSync(path, now, now);
    return { ...known, path, reused: true };
  }
  const temp = join(dir, `.${key}.${process.pid}.tmp`);
  try {
    const clip = await prepareClip(temp, options);
    renameSync(temp, path);
    writeFileSync(`${meta}.${process.pid}.tmp`, JSON.stringify({ width: clip.width, height: clip.height, fps: clip.fps, frameCount: clip.frameCount, bytes: statSync(path).size }) + '\n');
    renameSync(`${meta}.${process.pid}.tmp`, meta);
    evictClips(dir, maxBytes, path);
    return { ...clip, path, reused: false };
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The recorded description of a cached clip, when the clip is whole (its size as recorded). */
function readMeta(meta: string, path: string): PreparedClip | undefined {
  try {
    const value = JSON.parse(readFileSync(meta, 'utf8'));
    if (statSync(path).size !== value.bytes) return undefined;
    return { path, width: value.width, height: value.height, fps: value.fps, frameCount: value.frameCount };
  } catch {
    return undefined;
  }
}

/** Removes the least recently used clips until the rest fit in maxBytes (`keep` stays), and what dead writers left. */
export function evictClips(dir: string, maxBytes: number, keep: string): void {
  for (const name of readdirSync(dir)) {
    const writer = /\.(\d+)\.tmp$/.exec(name);
    if (writer !== null && !processAlive(Number(writer[1]))) rmSync(join(dir, name), { force: true });
  }
  const clips = readdirSync(dir)
    .filter((name) => name.endsWith('.y4m'))
    .map((name) => ({ path: join(dir, name), stats: statSync(join(dir, name)) }))
    .sort((a, b) => b.stats.mtimeMs - a.stats.mtimeMs);
  let total = 0;
  for (const { path, stats } of clips) {
    total += stats.size;
    if (total > maxBytes && path !== keep) {
      rmSync(path, { force: true });
      rmSync(path.replace(/\.y4m$/, '.json'), { force: true });
    }
  }
}
