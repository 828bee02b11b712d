// Per-source-frame measurement of a call, black-box as the paper's bench:
// which camera frame was captured when (sender page), which was shown when
// (receiver page), both on the machine's monotonic clock. Signal delay as
// ../shared/reference/README.md defines it: source frame i, captured at c_i,
// counts d_i - c_i, where d_i is when frame i or any later source frame is
// first shown; a frame never caught up by the end counts end - c_i (a lower
// bound). Pure functions of the records.
//
// The camera file loops, so a barcode holds the frame number modulo the
// file's length L: the sender's numbers are unwrapped in capture order, and a
// shown number n is the latest source frame k = n (mod L) captured before it
// was shown (delays are far shorter than the L / fps seconds of a loop).
import { displayTimes } from '../results/display-times.ts';

export interface CapturedFrame {
  /** Barcode as read (the file's frame number), or null. */
  readonly n: number | null;
  /** Capture time, monotonic ms. */
  readonly captureMs: number;
}

export interface ShownFrame {
  readonly n: number | null;
  /** Presentation time, monotonic ms. */
  readonly shownMs: number;
  readonly rtp?: number;
  readonly width?: number;
  readonly height?: number;
}

export interface SourceFrame {
  /** Unwrapped source frame index (camera frames since the file's frame 0 first played). */
  readonly sourceIndex: number;
  /** The frame's number in the camera file (sourceIndex mod L). */
  readonly fileFrame: number;
  readonly captureMs: number;
  /** When this very frame was first shown, if it was. */
  readonly shownMs?: number;
  /** d_i: this frame or any later one first shown, if by the end. */
  readonly displayMs?: number;
  readonly signalDelayMs: number;
  /** RTP timestamp and size of the frame as shown. */
  readonly rtp?: number;
  readonly shownWidth?: number;
  readonly shownHeight?: number;
}

export interface Measurement {
  readonly frames: SourceFrame[];
  /** Camera frames whose barcode the sender could not read, shown frames whose barcode the receiver could not read, shown frames matching no captured frame. */
  readonly unreadableCaptures: number;
  readonly unreadableShown: number;
  readonly unmatchedShown: number;
  /** Source frames missing between the first and last captured (the camera skipped them, or the page missed them): no capture time. */
  readonly missingCaptures: number;
}

/** The source index of each captured frame (null when its barcode is unreadable), unwrapping modulo `fileFrames`. */
export function unwrapCaptures(captures: readonly CapturedFrame[], fileFrames: number): (number | null)[] {
  let previous: number | null = null;
  return captures.map((c) => {
    if (c.n === null) return null;
    let index: number;
    if (previous === null) index = c.n;
    else {
      // The candidate closest to the frame after the previous one.
      const k = Math.round((previous + 1 - c.n) / fileFrames);
      index = c.n + k * fileFrames;
    }
    previous = index;
    return index;
  });
}

/**
 * The source frames captured in [fromMs, toMs) with their display times and
 * signal delays; `endMs` is the end of the run (for frames never caught up).
 * Captures are in capture order.
 */
export function measureFrames(captures: readonly CapturedFrame[], shown: readonly ShownFrame[], fileFrames: number, window: { fromMs: number; toMs: number; endMs: number }): Measurement {
  const indices = unwrapCaptures(captures, fileFrames);
  const captureOf = new Map<number, number>();
  const known: { index: number; captureMs: number }[] = [];
  for (let i = 0; i < captures.length; i++) {
    const index = indices[i];
    if (index === null || captureOf.has(index)) continue;
    captureOf.set(index, captures[i].captureMs);
    known.push({ index, captureMs: captures[i].captureMs });
  }
  known.sort((a, b) => a.captureMs - b.captureMs);
  // The latest source index captured at or before time t (by binary search), or -1.
  const latestBefore = (t: number): number => {
    let lo = 0;
    let hi = known.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (known[mid].captureMs <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? -1 : known[lo - 1].index;
  };
  const firstShown = new Map<number, ShownFrame>();
  let unreadableShown = 0;
  let unmatchedShown = 0;
  for (const s of shown) {
    if (s.n === null) {
      unreadableShown++;
      continue;
    }
    const latest = latestBefore(s.shownMs);
    const index = latest < s.n ? -1 : s.n + Math.floor((latest - s.n) / fileFrames) * fileFrames;
    if (index < 0 || !captureOf.has(index)) {
      unmatchedShown++;
      continue;
    }
    const before = firstShown.get(index);
    if (before === undefined || s.shownMs < before.shownMs) firstShown.set(index, s);
  }
  // d_i over every captured frame (the results pipeline's one definition), so that frames shown after the window count too.
  const all = [...known].sort((a, b) => a.index - b.index);
  const display = displayTimes(all.map((k) => firstShown.get(k.index)?.shownMs));
  const frames: SourceFrame[] = [];
  let missingCaptures = 0;
  let previous: number | undefined;
  all.forEach(({ index, captureMs }, i) => {
    if (!(captureMs >= window.fromMs && captureMs < window.toMs)) return;
    if (previous !== undefined) missingCaptures += index - previous - 1;
    previous = index;
    const own = firstShown.get(index);
    const displayMs = display[i];
    frames.push({
      sourceIndex: index,
      fileFrame: index % fileFrames,
      captureMs,
      shownMs: own?.shownMs,
      displayMs,
      signalDelayMs: (displayMs ?? window.endMs) - captureMs,
      rtp: own?.rtp,
      shownWidth: own?.width,
      shownHeight: own?.height,
    });
  });
  return { frames, unreadableCaptures: indices.filter((i) => i === null).length, unreadableShown, unmatchedShown, missingCaptures };
}
