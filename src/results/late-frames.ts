// How a run's worst frames failed, as the Salsify paper's per-frame analysis
// shows it (excamera/salsify-results, analysis.csv): of the source frames with
// more than a second of signal delay, how many were shown late (this very
// frame reached the screen) rather than never shown (lost, skipped,
// undecodable); the p95 of the shown frames' own delay (a standing queue shows
// here); and the longest run of consecutive source frames not shown (a stall,
// in ms of capture time). Over the run's measurement window; pure.
import type { FrameRecord, MeasureWindow } from './frame-record.ts';
import { distribution } from './statistics.ts';
import { framesInWindow } from './window.ts';

export const LATE_THRESHOLD_MS = 1000;

export interface LateFrames {
  /** Source frames with more than LATE_THRESHOLD_MS of signal delay. */
  readonly framesOver1s: number;
  /** ... of which this very frame was shown (shown late). */
  readonly framesOver1sShown: number;
  /** p95 of the signal delay of the frames that were shown (ms); NaN if none was. */
  readonly shownDelayP95Ms: number;
  /** The longest run of consecutive source frames not shown, from the first one's capture to the next shown frame's (or the window's last frame's, plus one interval); 0 if every frame was shown. */
  readonly longestUnshownMs: number;
}

type Frame = Pick<FrameRecord, 'captureMs' | 'fate' | 'signalDelayMs'>;

/** The late-frame account of `frames` (in capture order) over `window`. */
export function lateFrames(frames: readonly Frame[], window: MeasureWindow | null | undefined): LateFrames {
  const inWindow = framesInWindow(frames, window);
  let over = 0;
  let overShown = 0;
  const shownDelays: number[] = [];
  let longest = 0;
  let runStart: number | undefined;
  const interval = inWindow.length > 1 ? inWindow[1]!.captureMs - inWindow[0]!.captureMs : 0;
  for (const f of inWindow) {
    const shown = f.fate === 'shown';
    if (f.signalDelayMs > LATE_THRESHOLD_MS) {
      over++;
      if (shown) overShown++;
    }
    if (shown) {
      shownDelays.push(f.signalDelayMs);
      if (runStart !== undefined) longest = Math.max(longest, f.captureMs - runStart);
      runStart = undefined;
    } else if (runStart === undefined) {
      runStart = f.captureMs;
    }
  }
  if (runStart !== undefined) longest = Math.max(longest, inWindow[inWindow.length - 1]!.captureMs + interval - runStart);
  return { framesOver1s: over, framesOver1sShown: overShown, shownDelayP95Ms: distribution(shownDelays).p95, longestUnshownMs: longest };
}
