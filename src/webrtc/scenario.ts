// The scenario of a real-time run of `salsify webrtc` (a browser call or a Salsify endpoint): the
// paper's preset its path comes from, the trace second its media starts at (--trace-start: linkshell
// holds its traces until the media's first packet), and the stretch of the run its summary covers
// (--measure-from, --measure-for), counted from the media's first packet, so that every system is
// measured over the same trace seconds (the paper's window: from 62 s, for 640 s).
import { checkWindow, type MeasureWindow } from '../results/window.ts';

export interface CallScenario {
  /** The preset the path comes from (salsify webrtc --preset), or null. */
  readonly preset: string | null;
  /** The trace second the media's first packet meets (--trace-start). */
  readonly traceStartS: number;
  /** The summary covers the source frames captured from this many seconds after the media's first packet (default: all frames). */
  readonly measureFromS?: number;
  /** ... for this many seconds (default: to the end of the run). */
  readonly measureForS?: number;
}

/**
 * The summary's window in the run's own time (ms since its time zero), given when in that time
 * the media's first packet crossed the link (`mediaStartMs`); undefined when the scenario asks for
 * none (every frame counts). A window that would start before the run's zero starts at it.
 */
export function summaryWindow(scenario: CallScenario | undefined, mediaStartMs: number, endMs: number): MeasureWindow | undefined {
  if (scenario === undefined || (scenario.measureFromS === undefined && scenario.measureForS === undefined)) return undefined;
  const fromMs = mediaStartMs + 1000 * (scenario.measureFromS ?? 0);
  const toMs = scenario.measureForS === undefined ? endMs : fromMs + 1000 * scenario.measureForS;
  if (!(toMs > Math.max(0, fromMs))) {
    throw new RangeError(`the measured window [${(fromMs / 1000).toFixed(3)}, ${(toMs / 1000).toFixed(3)}) s of the run is empty: the run ended at ${(endMs / 1000).toFixed(3)} s (is --measure-from below --duration?)`);
  }
  return checkWindow({ fromMs: Math.max(0, fromMs), toMs });
}
