// The measurement window of a run: the summary (signal delay, SSIM, frame
// fates, link use) covers only the source frames captured in [fromMs, toMs)
// of the run's clock, so that a warm-up (the Salsify paper's first minute, see
// salsify/presets.ts) or a trace's outage outside the window does not count.
// One definition for every producer: a run record carries its window, and
// summarize() and the link-use meter apply it.
import type { FrameRecord, MeasureWindow } from './frame-record.ts';

export type { MeasureWindow };

export function checkWindow(window: MeasureWindow): MeasureWindow {
  const { fromMs, toMs } = window;
  if (!(Number.isFinite(fromMs) && fromMs >= 0 && toMs > fromMs)) {
    throw new RangeError(`measure window [${fromMs}, ${toMs}) ms must start at or after 0 and end after it starts`);
  }
  return window;
}

/** The window of `forMs` starting at `fromMs` (forMs Infinity: to the end of the run, endMs). */
export function measureWindow(fromMs: number, forMs: number, endMs: number): MeasureWindow {
  return checkWindow({ fromMs, toMs: Number.isFinite(forMs) ? fromMs + forMs : endMs });
}

export function capturedIn(frame: Pick<FrameRecord, 'captureMs'>, window: MeasureWindow): boolean {
  return frame.captureMs >= window.fromMs && frame.captureMs < window.toMs;
}

/** The frames captured in the window (all of them without one). */
export function framesInWindow<F extends Pick<FrameRecord, 'captureMs'>>(frames: readonly F[], window: MeasureWindow | null | undefined): readonly F[] {
  if (!window) return frames;
  return frames.filter((f) => capturedIn(f, window));
}
