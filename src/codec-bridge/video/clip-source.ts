// A clip as an endless video source: it plays forward then backward
// (0, 1, ..., n-1, n-2, ..., 1, 0, 1, ...), so a run longer than the clip has
// no cut. Frames are read on demand (a Y4M file through its offset index, an
// IVF file through the caller's decoder with decoded frames kept on disk), so
// memory stays bounded by default; `cache: 'memory'` trades memory for speed.
import type { Picture } from '../types.ts';
import { IvfClip, type DecodeFrame, type IvfClipOptions } from './ivf-clip.ts';
import { checkFrameIndex, type VideoSource } from './video-source.ts';
import { Y4mFile, type ClipFrames, type Y4mFileOptions } from './y4m-file.ts';

/** The clip frame shown at source frame `index` for a clip of `clipLength` frames, played forward then backward. */
export function loopFrameIndex(index: number, clipLength: number): number {
  checkFrameIndex(index, 'loopFrameIndex');
  if (!Number.isSafeInteger(clipLength) || clipLength < 1) throw new RangeError(`loopFrameIndex: clip length must be an integer >= 1, got ${clipLength}`);
  if (clipLength === 1) return 0;
  const period = 2 * (clipLength - 1);
  const phase = index % period;
  return phase < clipLength ? phase : period - phase;
}

/** Wraps a finite clip as an endless VideoSource that loops it forward then backward. */
export function loopClip(clip: ClipFrames): VideoSource {
  let closed = false;
  return {
    description: clip.description,
    width: clip.width,
    height: clip.height,
    fps: clip.fps,
    frameCount: clip.frameCount,
    frame(index: number): Promise<Picture> {
      if (closed) return Promise.reject(new Error(`${clip.description}: the video source is closed`));
      try {
        checkFrameIndex(index, clip.description);
      } catch (error) {
        return Promise.reject(error);
      }
      return clip.read(loopFrameIndex(index, clip.frameCount));
    },
    async close() {
      closed = true;
      await clip.close();
    },
  };
}

/** A looping source from a Y4M file. */
export async function openY4mClipSource(path: string, options: Y4mFileOptions = {}): Promise<VideoSource> {
  return loopClip(await Y4mFile.open(path, options));
}

/** A looping source from an IVF file, decoded by `decode` (the codec's decoder, fed frames in file order). */
export async function openIvfClipSource(path: string, decode: DecodeFrame, options: IvfClipOptions = {}): Promise<VideoSource> {
  return loopClip(await IvfClip.open(path, decode, options));
}
