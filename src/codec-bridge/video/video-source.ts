// What the Salsify sender (and the demo) capture from: a source of pictures at
// a fixed frame rate, addressed by frame index. A sender running at time t
// takes the newest captured frame, frameIndexAt(source, t).
import type { Picture } from '../types.ts';

export interface VideoSource {
  /** Where the frames come from (a file path or a generator description), for messages and logs. */
  readonly description: string;
  readonly width: number;
  readonly height: number;
  /** Frames per second. */
  readonly fps: number;
  /**
   * Distinct frames in the underlying clip (one forward pass), or undefined for
   * a generator. Either way frame(i) accepts every integer i >= 0: clips loop.
   */
  readonly frameCount: number | undefined;
  /** Frame `index` (an integer >= 0) as a fresh I420 picture the caller may keep or modify. */
  frame(index: number): Promise<Picture>;
  /** Releases files and temporary storage. Further frame() calls reject. */
  close(): Promise<void>;
}

/** The index of the newest frame captured at `timeMs` after the source started (frame 0 at time 0). */
export function frameIndexAt(source: Pick<VideoSource, 'fps'>, timeMs: number): number {
  if (!Number.isFinite(timeMs) || timeMs < 0) throw new RangeError(`frameIndexAt: time must be a finite number >= 0 ms, got ${timeMs}`);
  // The small tolerance keeps t = k * (1000 / fps) on frame k despite rounding.
  return Math.floor((timeMs * source.fps) / 1000 + 1e-9);
}

/** Throws a RangeError unless `index` is an integer >= 0. */
export function checkFrameIndex(index: number, where: string): void {
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new RangeError(`${where}: frame index must be an integer >= 0, got ${index}`);
  }
}
