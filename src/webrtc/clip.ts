// The fake camera's clip: a Y4M file Chromium plays with
// --use-file-for-fake-video-capture. The source (a clip, played forward then
// backward so that it has no cut, or the synthetic scene) is sampled at the
// call's frame rate, scaled to the call's size, and each frame stamped with
// its number in the file (barcode.ts). Chromium loops the file, so the
// barcode holds the frame number modulo the file's length; the bench unwraps
// it with the capture times (measure.ts).
import { openVideoSource } from '../codec-bridge/video/open-video-source.ts';
import { frameIndexAt } from '../codec-bridge/video/video-source.ts';
import { createY4mWriter } from '../codec-bridge/video/y4m.ts';
import { createStreamDecoder } from '../codec-bridge/stream-decoder.ts';
import { BARCODE_MAX, stampBarcode } from './barcode.ts';
import { resizePicture } from './scale.ts';

export interface ClipOptions {
  /** A .y4m or .ivf path, or "synthetic". */
  readonly video: string;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /** Frames in the file when the source has no length of its own (synthetic; default 20 s). */
  readonly syntheticFrames?: number;
}

export interface PreparedClip {
  readonly path: string;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /** Frames in the file: the barcode of source frame k is k mod frameCount. */
  readonly frameCount: number;
}

/**
 * Frames the prepared file holds: one whole forward-and-backward period of a
 * clip of `clipFrames` frames at `clipFps`, sampled at `fps` (so that the
 * file loops without a jump), or `fallback` for a source without a length.
 */
export function preparedFrameCount(clipFrames: number | undefined, clipFps: number, fps: number, fallback: number): number {
  if (clipFrames === undefined) return fallback;
  const periodFrames = clipFrames > 1 ? 2 * (clipFrames - 1) : 1;
  return Math.max(1, Math.round((periodFrames / clipFps) * fps));
}

/** Writes the prepared clip to `path`. */
export async function prepareClip(path: string, options: ClipOptions): Promise<PreparedClip> {
  const { width, height, fps } = options;
  const decoder = options.video.toLowerCase().endsWith('.ivf') ? createStreamDecoder() : undefined;
  const source = await openVideoSource(options.video, {
    width: options.video.startsWith('synthetic') ? width : undefined,
    height: options.video.startsWith('synthetic') ? height : undefined,
    fps: options.video.startsWith('synthetic') ? fps : undefined,
    decode: decoder ? (frame) => decoder.decode(frame) : undefined,
    cache: decoder ? 'disk' : undefined,
  });
  try {
    const frameCount = preparedFrameCount(source.frameCount, source.fps, fps, options.syntheticFrames ?? Math.round(20 * fps));
    if (frameCount > BARCODE_MAX + 1) throw new RangeError(`${options.video}: ${frameCount} frames do not fit the barcode's ${BARCODE_MAX + 1}`);
    const writer = createY4mWriter(path, { width, height, fps, interlacing: 'p', colourSpace: '420jpeg' });
    try {
      for (let k = 0; k < frameCount; k++) {
        const picture = resizePicture(await source.frame(frameIndexAt(source, (k * 1000) / fps)), width, height);
        stampBarcode(picture, k);
        await writer.write(picture);
      }
    } finally {
      await writer.close();
    }
    return { path, width, height, fps, frameCount };
  } finally {
    await source.close();
  }
}
