// The fake camera's clip: a Y4M file Chromium plays with
// --use-file-for-fake-video-capture. The source (a clip, played forward then
// backward so that it has no cut, or the synthetic scene) is sampled at the
// call's frame rate, scaled to the call's size, and each frame stamped with
// its number in the file (barcode.ts). Chromium loops the file, so the
// barcode holds the frame number modulo the file's length; the bench unwraps
// it with the capture times (measure.ts).
import { createStreamDecoder } from '../codec-bridge/stream-decoder.ts';
import type { Picture } from '../codec-bridge/types.ts';
import { loopFrameIndex } from '../codec-bridge/video/clip-source.ts';
import { ivfFrameRate } from '../codec-bridge/video/ivf-frame-rate.ts';
import { openIvfReader, type IvfFrame } from '../codec-bridge/video/ivf.ts';
import { openVideoSource } from '../codec-bridge/video/open-video-source.ts';
import { frameIndexAt } from '../codec-bridge/video/video-source.ts';
import { createY4mWriter } from '../codec-bridge/video/y4m.ts';
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

/** The clip frame (forward then backward) shown at prepared frame k: the source sampled at `fps`. */
function clipIndex(k: number, clipFps: number, clipFrames: number | undefined, fps: number): number {
  const index = frameIndexAt({ fps: clipFps }, (k * 1000) / fps);
  return clipFrames === undefined ? index : loopFrameIndex(index, clipFrames);
}

/**
 * The frames of an IVF clip that the prepared file uses, decoded in one
 * sequential pass (a VP8 stream decodes only in order) and resized at once,
 * so that only the needed frames at the call's size are held.
 */
async function ivfFramesNeeded(path: string, width: number, height: number, fps: number, fallbackFrames: number) {
  const reader = await openIvfReader(path);
  const encoded: IvfFrame[] = [];
  try {
    for (let f = await reader.readFrame(); f !== null; f = await reader.readFrame()) encoded.push(f);
  } finally {
    await reader.close();
  }
  if (encoded.length === 0) throw new Error(`${path}: the IVF file has no frames`);
  const clipFps = ivfFrameRate(encoded.map((f) => f.timestamp), reader.header, path).fps;
  const frameCount = preparedFrameCount(encoded.length, clipFps, fps, fallbackFrames);
  const needed = new Set<number>();
  for (let k = 0; k < frameCount; k++) needed.add(clipIndex(k, clipFps, encoded.length, fps));
  const decoder = createStreamDecoder();
  const kept = new Map<number, Picture>();
  for (let i = 0; i < encoded.length; i++) {
    const picture = await decoder.decode(encoded[i].data);
    if (needed.has(i)) kept.set(i, resizePicture(picture, width, height));
  }
  return { frameCount, frame: (k: number) => kept.get(clipIndex(k, clipFps, encoded.length, fps))! };
}

/** Writes the prepared clip to `path`. */
export async function prepareClip(path: string, options: ClipOptions): Promise<PreparedClip> {
  const { width, height, fps } = options;
  const fallbackFrames = options.syntheticFrames ?? Math.round(20 * fps);
  let frameCount: number;
  let frame: (k: number) => Promise<Picture> | Picture;
  let close = async () => {};
  if (options.video.toLowerCase().endsWith('.ivf')) {
    ({ frameCount, frame } = await ivfFramesNeeded(options.video, width, height, fps, fallbackFrames));
  } else {
    const synthetic = options.video.startsWith('synthetic');
    const source = await openVideoSource(options.video, synthetic ? { width, height, fps } : {});
    close = () => source.close();
    frameCount = preparedFrameCount(source.frameCount, source.fps, fps, fallbackFrames);
    // The source loops forward and backward itself.
    frame = async (k) => resizePicture(await source.frame(frameIndexAt(source, (k * 1000) / fps)), width, height);
  }
  try {
    if (frameCount > BARCODE_MAX + 1) throw new RangeError(`${options.video}: ${frameCount} frames do not fit the barcode's ${BARCODE_MAX + 1}`);
    const writer = createY4mWriter(path, { width, height, fps, interlacing: 'p', colourSpace: '420jpeg' });
    try {
      for (let k = 0; k < frameCount; k++) {
        const picture = await frame(k);
        const stamped = { width, height, data: picture.data.slice() };
        stampBarcode(stamped, k);
        await writer.write(stamped);
      }
    } finally {
      await writer.close();
    }
    return { path, width, height, fps, frameCount };
  } finally {
    await close();
  }
}
