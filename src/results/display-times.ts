// Display times and signal delays, as ../shared/reference/README.md defines
// them: source frame i, captured at c_i, counts d_i - c_i, where d_i is the
// time frame i or any later source frame is first shown. A frame never caught
// up by the end of the run (time E) counts with E - c_i, a lower bound of its
// delay, so that the statistics still cover every source frame.
import type { FrameRecord } from './frame-record.ts';

export type ObservedFrame = Omit<FrameRecord, 'displayMs' | 'signalDelayMs'>;

/** d_i for every source frame: the earliest show of frame i or any later frame (undefined if none). */
export function displayTimes(shownMs: readonly (number | undefined)[]): (number | undefined)[] {
  const out: (number | undefined)[] = new Array(shownMs.length);
  let best = Infinity;
  for (let i = shownMs.length - 1; i >= 0; i--) {
    const t = shownMs[i];
    if (t !== undefined && t < best) best = t;
    out[i] = best === Infinity ? undefined : best;
  }
  return out;
}

/** The frames with their display time and signal delay, the run having ended at `endMs`. */
export function withSignalDelays(frames: readonly ObservedFrame[], endMs: number): FrameRecord[] {
  const display = displayTimes(frames.map((f) => f.shownMs));
  return frames.map((f, i) => {
    const d = display[i];
    return { ...f, displayMs: d, signalDelayMs: (d ?? endMs) - f.captureMs };
  });
}

/** The paper's display: 59.94 Hz (NTSC), as its bench's capture card read it. */
export const PAPER_REFRESH_HZ = 60000 / 1001;

/**
 * When a picture ready at `readyMs` reaches the screen of a display refreshing
 * at `hz` (refreshes at k x 1000 / hz ms of the run's clock): the next refresh
 * at or after it.
 */
export function nextRefreshMs(readyMs: number, hz: number): number {
  if (!(hz > 0 && Number.isFinite(hz))) throw new RangeError(`display refresh must be a number of Hz > 0, got ${hz}`);
  const period = 1000 / hz;
  return Math.ceil(readyMs / period - 1e-9) * period;
}
